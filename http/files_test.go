package http_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/sleep"
)

// TestGeminiFileLengths: a video named by URI counts what Gemini counts
// for it once the proxy has relayed the Files API's answer about it (an
// upload's, then a get's once processed), nothing while the Files API
// knows no such file; a request over the budget because of it is
// compressed; another tenant's request naming it asks the Files API.
func TestGeminiFileLengths(t *testing.T) {
	e, g := newGeminiEnv(t)
	const uri = "https://generativelanguage.googleapis.com/v1beta/files/vid-1"
	file := func(extra string) string {
		return `{"name":"files/vid-1","mimeType":"video/mp4","sizeBytes":"31250000","uri":"` + uri + `"` + extra + `}`
	}
	var uploaded atomic.Bool
	g.reply = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		switch {
		case strings.HasPrefix(r.URL.Path, "/upload/"):
			uploaded.Store(true)
			io.WriteString(w, `{"file":`+file(`,"state":"PROCESSING"`)+`}`)
		case strings.HasSuffix(r.URL.Path, "/files/vid-1") && !uploaded.Load():
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":404,"message":"File files/vid-1 not found.","status":"NOT_FOUND"}}`)
		case strings.HasSuffix(r.URL.Path, "/files/vid-1"):
			io.WriteString(w, file(`,"state":"ACTIVE","videoMetadata":{"videoDuration":"120s"}`))
		default:
			io.WriteString(w, geminiAnswer)
		}
	}
	ask := func(key string) (before int, mode string) {
		t.Helper()
		body := `{"contents":[{"role":"user","parts":[{"text":"what happens in it?"},{"fileData":{"mimeType":"video/mp4","fileUri":"` + uri + `"}}]},` +
			`{"role":"model","parts":[{"text":"A cat crosses a road."}]},{"role":"user","parts":[{"text":"and then?"}]}]}`
		resp := geminiDo(t, e, "POST", "/v1beta/models/gemini-3-flash-preview:generateContent", body, "x-goog-api-key: "+key, swchttp.HeaderBudget+": 4000")
		readAll(t, resp)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		n, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensBefore))
		return n, resp.Header.Get(swchttp.HeaderMode)
	}
	unknown, mode := ask(e.key)
	if mode != "fits" {
		t.Fatalf("before the Files API said anything: mode %s, %d tokens", mode, unknown)
	}
	// The upload: its size at 500 kbit/s (31.25 MB, 500 s) until processed.
	readAll(t, geminiDo(t, e, "POST", "/upload/v1beta/files?upload_id=u1", "bytes", "x-goog-api-key: "+e.key))
	if n, _ := ask(e.key); n-unknown != 500*70+500*32 {
		t.Errorf("after the upload: %d tokens more, want %d", n-unknown, 500*70+500*32)
	}
	// Processed: its length.
	readAll(t, geminiDo(t, e, "GET", "/v1beta/files/vid-1", "", "x-goog-api-key: "+e.key))
	n, mode := ask(e.key)
	if n-unknown != 120*70+120*32 || mode == "fits" {
		t.Errorf("after the get: %d tokens more (want %d), mode %s", n-unknown, 120*70+120*32, mode)
	}
	_, sent := g.last(t)
	if strings.Contains(string(sent), uri) {
		t.Errorf("over the budget because of the video, the old turn holding it went upstream: %.300s", sent)
	}
	// Another tenant's request naming the URI: swc asks the Files API.
	gets := g.count()
	if n, _ := ask(e.newKey("other")); n-unknown != 120*70+120*32 || g.count() != gets+2 {
		t.Errorf("another tenant: %d tokens more (want %d), %d requests upstream (want the get and the request)", n-unknown, 120*70+120*32, g.count()-gets)
	}
}

// TestGeminiFilesTapLimits: a Files API answer that is not a 200, not
// JSON, or over the tap's 1 MiB reaches the client as it came, and
// teaches swc nothing.
func TestGeminiFilesTapLimits(t *testing.T) {
	e, g := newGeminiEnv(t)
	const uri = "https://generativelanguage.googleapis.com/v1beta/files/v"
	file := `{"uri":"` + uri + `","mimeType":"video/mp4","videoMetadata":{"videoDuration":"60s"}}`
	big := `{"files":[` + file + strings.Repeat(`,{"uri":"files/x","mimeType":"image/png"}`, 30_000) + `]}`
	answers := map[string]struct {
		status int
		ctype  string
		body   string
	}{
		"/v1beta/files/a": {404, "application/json", file},
		"/v1beta/files/b": {200, "text/plain", file},
		"/v1beta/files":   {200, "application/json", big},
	}
	g.reply = func(w http.ResponseWriter, r *http.Request, body []byte) {
		if a, ok := answers[r.URL.Path]; ok {
			w.Header().Set("Content-Type", a.ctype)
			w.WriteHeader(a.status)
			io.WriteString(w, a.body)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, geminiAnswer)
	}
	for path, a := range answers {
		resp := geminiDo(t, e, "GET", path, "", "x-goog-api-key: "+e.key)
		if got := readAll(t, resp); resp.StatusCode != a.status || got != a.body {
			t.Errorf("%s: %d, %d bytes; want %d, %d bytes", path, resp.StatusCode, len(got), a.status, len(a.body))
		}
	}
	body := `{"contents":[{"role":"user","parts":[{"text":"what happens?"},{"fileData":{"mimeType":"video/mp4","fileUri":"` + uri + `"}}]}]}`
	resp := geminiDo(t, e, "POST", "/v1beta/models/gemini-3-flash-preview:generateContent", body, "x-goog-api-key: "+e.key, swchttp.HeaderBudget+": 100000")
	readAll(t, resp)
	if n, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensBefore)); n > 100 {
		t.Errorf("the video counts %d tokens: an answer swc should not have read taught it its length", n)
	}
}

// TestGeminiFileLookup: a request naming a Files API file the proxy has
// not seen uploaded (uploaded straight to Google, or through another
// replica) makes the proxy ask the Files API for it, with the server's
// key, once: the file then counts as if relayed. A file the API does not
// know, or whose get fails, counts nothing and is not asked for again for
// ten minutes; concurrent requests naming one file share one get; a URI
// that names no Files API file (a YouTube video) is not asked for; a
// request names at most eight files to look up.
func TestGeminiFileLookup(t *testing.T) {
	var mu sync.Mutex
	offset := time.Duration(0)
	e := newProxyEnv(t, func(s *swchttp.Server, _ *sleep.Service) {
		s.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return time.Now().Add(offset) }
	})
	g := &geminiUpstream{}
	e.up.handle = g.handle
	var gets sync.Map // path → *atomic.Int32
	slowStarted, release := make(chan struct{}, 1), make(chan struct{})
	g.reply = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		if r.Method != http.MethodGet {
			io.WriteString(w, geminiAnswer)
			return
		}
		n, _ := gets.LoadOrStore(r.URL.Path, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		id := strings.TrimPrefix(r.URL.Path, "/v1beta/files/")
		switch {
		case r.Header.Get("X-Goog-Api-Key") != "gemini-upstream-key" || r.Header.Get("Authorization") != "":
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"error":{"code":403,"message":"bad key","status":"PERMISSION_DENIED"}}`)
		case id == "vid-slow":
			slowStarted <- struct{}{}
			<-release
			fallthrough
		case strings.HasPrefix(id, "vid-"):
			time.Sleep(50 * time.Millisecond) // concurrent requests overlap
			io.WriteString(w, `{"name":"files/`+id+`","mimeType":"video/mp4","sizeBytes":"9000000","uri":"https://generativelanguage.googleapis.com/v1beta/files/`+id+`","state":"ACTIVE","videoMetadata":{"videoDuration":"60s"}}`)
		case id == "broken":
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error":{"code":500,"message":"internal","status":"INTERNAL"}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}`)
		}
	}
	getsOf := func(id string) int {
		if n, ok := gets.Load("/v1beta/files/" + id); ok {
			return int(n.(*atomic.Int32).Load())
		}
		return 0
	}
	ask := func(uris ...string) int {
		t.Helper()
		parts := []string{`{"text":"what happens in them?"}`}
		for _, u := range uris {
			parts = append(parts, `{"fileData":{"mimeType":"video/mp4","fileUri":"`+u+`"}}`)
		}
		body := `{"contents":[{"role":"user","parts":[` + strings.Join(parts, ",") + `]}]}`
		resp := geminiDo(t, e, "POST", "/v1beta/models/gemini-3-flash-preview:generateContent", body, "x-goog-api-key: "+e.key, swchttp.HeaderBudget+": 100000")
		if got := readAll(t, resp); resp.StatusCode != 200 || got != geminiAnswer {
			t.Fatalf("%d %s", resp.StatusCode, got)
		}
		n, _ := strconv.Atoi(resp.Header.Get(swchttp.HeaderTokensBefore))
		return n
	}
	const file = "https://generativelanguage.googleapis.com/v1beta/files/"
	const video = 60*70 + 60*32
	none := ask()
	part := ask(file+"gone") - none // a part's placeholder: what a file of unknown length counts
	if n := ask(file+"vid-1") - none - part; n != video || getsOf("vid-1") != 1 {
		t.Errorf("a file never seen: %d tokens (want %d), %d gets (want 1)", n, video, getsOf("vid-1"))
	}
	if n := ask(file+"vid-1") - none - part; n != video || getsOf("vid-1") != 1 {
		t.Errorf("again: %d tokens, %d gets; want %d and the one before", n, getsOf("vid-1"), video)
	}
	// Unknown, failing: nothing counted, not asked again for ten minutes.
	for _, id := range []string{"gone", "broken"} {
		for range 2 {
			if n := ask(file+id) - none - part; n != 0 || getsOf(id) != 1 {
				t.Errorf("%s: %d tokens, %d gets; want 0 and 1", id, n, getsOf(id))
			}
		}
	}
	mu.Lock()
	offset = 11 * time.Minute
	mu.Unlock()
	if ask(file + "gone"); getsOf("gone") != 2 {
		t.Errorf("ten minutes later: %d gets of a file not found, want 2", getsOf("gone"))
	}
	// Not a Files API file: not asked for.
	ask("https://www.youtube.com/watch?v=9hE5-98ZeCg", "gs://bucket/a.mp4", file+"UPPER", "https://generativelanguage.googleapis.com/v1beta/files/vid-9/extra")
	gets.Range(func(k, v any) bool {
		if p := k.(string); !strings.HasSuffix(p, "vid-1") && !strings.HasSuffix(p, "gone") && !strings.HasSuffix(p, "broken") {
			t.Errorf("asked for %s", p)
		}
		return true
	})
	// Concurrent requests naming one file: one get.
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if n := ask(file+"vid-2") - none - part; n != video {
				t.Errorf("concurrent: %d tokens, want %d", n, video)
			}
		})
	}
	wg.Wait()
	if getsOf("vid-2") != 1 {
		t.Errorf("6 concurrent requests: %d gets, want 1", getsOf("vid-2"))
	}
	// The request that started a lookup goes away: the lookup goes on for
	// the one waiting on it, and what it learned stays.
	ctx, cancel := context.WithCancel(t.Context())
	first := make(chan error, 1)
	go func() {
		body := `{"contents":[{"role":"user","parts":[{"fileData":{"mimeType":"video/mp4","fileUri":"` + file + `vid-slow"}}]}]}`
		req, _ := http.NewRequestWithContext(ctx, "POST", e.ts.URL+"/v1beta/models/gemini-3-flash-preview:generateContent", strings.NewReader(body))
		req.Header.Set("X-Goog-Api-Key", e.key)
		resp, err := e.ts.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		first <- err
	}()
	<-slowStarted
	waiting := make(chan int, 1)
	go func() { waiting <- ask(file+"vid-slow") - none - part }()
	time.Sleep(50 * time.Millisecond) // the second request waits on the lookup
	cancel()
	<-first
	close(release)
	if n := <-waiting; n != video {
		t.Errorf("the request waiting on a lookup whose first asker went away: %d tokens, want %d", n, video)
	}
	if n := ask(file+"vid-slow") - none - part; n != video || getsOf("vid-slow") != 1 {
		t.Errorf("after it: %d tokens (want %d), %d gets (want 1)", n, video, getsOf("vid-slow"))
	}
	// Ten files never seen: eight asked for.
	var uris []string
	for i := range 10 {
		uris = append(uris, file+"vid-1"+strconv.Itoa(i))
	}
	if n := ask(uris...) - none - 10*part; n != 8*video {
		t.Errorf("ten files: %d tokens, want eight videos' %d", n, 8*video)
	}
	mr, err := e.ts.Client().Get(e.ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	m := readAll(t, mr)
	for _, want := range []string{`swc_proxy_file_lookups_total{result="found"} 11`, `swc_proxy_file_lookups_total{result="unknown"} 3`} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
