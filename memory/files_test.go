package memory

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMiddlewareFileLengths: a video named by URI counts, in a Gemini or
// Interactions request through the middleware, what Gemini counts for it
// once the Files API's answer about it came through the same middleware,
// and nothing before; the answer reaches the caller as it came.
func TestMiddlewareFileLengths(t *testing.T) {
	const uri = "https://generativelanguage.googleapis.com/v1beta/files/vid-1"
	answer := `{"name":"files/vid-1","mimeType":"video/mp4","uri":"` + uri + `","state":"ACTIVE","videoMetadata":{"videoDuration":"120s"}}`
	files := func(r *http.Request) (*http.Response, error) {
		h := http.Header{"Content-Type": {"application/json; charset=UTF-8"}}
		return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(answer))}, nil
	}
	for _, tc := range []struct {
		name, path, body string
		mw               func(*Compressor, func(*Result, error)) Middleware
	}{
		{"gemini", "/v1beta/models/gemini-3-flash-preview:generateContent", `{"contents":[{"role":"user","parts":[{"text":"what happens?"},{"fileData":{"mimeType":"video/mp4","fileUri":"` + uri + `"}}]}]}`, GeminiMiddleware},
		{"interactions", "/v1beta/interactions", `{"model":"gemini-3-flash-preview","input":[{"type":"text","text":"what happens?"},{"type":"video","mime_type":"video/mp4","uri":"` + uri + `"}]}`, InteractionsMiddleware},
	} {
		o := DefaultOptions()
		o.Budget = 100000
		var got []int
		mw := tc.mw(mustNew(t, o), func(r *Result, err error) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r.TokensBefore)
		})
		var cp capture
		if _, err := mw(post(t, "https://x.invalid"+tc.path, []byte(tc.body)), cp.next); err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, "https://x.invalid/v1beta/files/vid-1", nil)
		resp, err := mw(req, files)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := io.ReadAll(resp.Body); string(b) != answer {
			t.Errorf("%s: the Files API's answer reached the caller as %q", tc.name, b)
		}
		if _, err := mw(post(t, "https://x.invalid"+tc.path, []byte(tc.body)), cp.next); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[1]-got[0] != 120*70+120*32 {
			t.Errorf("%s: tokens before and after the Files API's answer: %v, want %d more", tc.name, got, 120*70+120*32)
		}
	}
}

// TestMiddlewareFileLookup: a request naming a Files API file the
// middleware has not seen makes it ask the Files API, through the next
// transport, with the request's own key (header or query) on the
// request's host and base path; what it learns counts then and after. A
// file the API does not know is not asked for again; one whose get
// failed, at most three times in all.
func TestMiddlewareFileLookup(t *testing.T) {
	var mu sync.Mutex
	gets := map[string]int{}
	var slowKey string // (mu)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		if r.Method != http.MethodGet {
			io.WriteString(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]}}]}`)
			return
		}
		mu.Lock()
		gets[r.URL.Path]++
		mu.Unlock()
		if r.URL.Query().Has("alt") || r.Header.Get("Accept") != "application/json" || r.Header.Get("Content-Type") != "" {
			t.Errorf("the get of %s came with ?%s, Accept %q, Content-Type %q", r.URL.Path, r.URL.RawQuery, r.Header.Get("Accept"), r.Header.Get("Content-Type"))
		}
		id := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		switch {
		case r.Header.Get("X-Goog-Api-Key") != "client-key" && r.URL.Query().Get("key") != "client-key":
			w.WriteHeader(http.StatusForbidden)
		case !strings.HasPrefix(r.URL.Path, "/gw/v1beta/files/"):
			w.WriteHeader(http.StatusNotFound)
		case id == "vid-slow":
			mu.Lock()
			slowKey = r.Header.Get("X-Goog-Api-Key")
			mu.Unlock()
			select { // longer than its asker waits: the lookup outlives the request
			case <-time.After(150 * time.Millisecond):
			case <-r.Context().Done():
			}
			w.WriteHeader(http.StatusServiceUnavailable)
		case strings.HasPrefix(id, "vid-"):
			io.WriteString(w, `{"name":"files/`+id+`","mimeType":"video/mp4","uri":"https://generativelanguage.googleapis.com/v1beta/files/`+id+`","state":"ACTIVE","videoMetadata":{"videoDuration":"60s"}}`)
		case id == "broken":
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":404,"status":"NOT_FOUND"}}`)
		}
	}))
	defer srv.Close()
	o := DefaultOptions()
	o.Budget = 100000
	var before []int
	mw := GeminiMiddleware(mustNew(t, o), func(r *Result, err error) {
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, r.TokensBefore)
	})
	next := func(r *http.Request) (*http.Response, error) { return srv.Client().Transport.RoundTrip(r) }
	ask := func(query, header string, uris ...string) int {
		t.Helper()
		parts := []string{`{"text":"what happens?"}`}
		for _, u := range uris {
			parts = append(parts, `{"fileData":{"mimeType":"video/mp4","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/`+u+`"}}`)
		}
		req := post(t, srv.URL+"/gw/v1beta/models/gemini-3-flash-preview:generateContent"+query, []byte(`{"contents":[{"role":"user","parts":[`+strings.Join(parts, ",")+`]}]}`))
		if header != "" {
			req.Header.Set("X-Goog-Api-Key", header)
		}
		resp, err := mw(req, next)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return before[len(before)-1]
	}
	const video = 60*70 + 60*32
	part := ask("", "client-key", "gone") - ask("", "client-key")
	for _, tc := range []struct {
		name, query, header string
		uris                []string
		want, gets          int // the video's tokens; gets of the first file in all
	}{
		{"header", "", "client-key", []string{"vid-1"}, video, 1},
		{"again", "", "client-key", []string{"vid-1"}, video, 1},
		{"query", "?key=client-key&alt=sse", "", []string{"vid-2"}, video, 1},
		{"unknown", "", "client-key", []string{"gone"}, 0, 1},
		{"failing 1", "", "client-key", []string{"broken"}, 0, 1},
		{"failing 2", "", "client-key", []string{"broken"}, 0, 2},
		{"failing 3", "", "client-key", []string{"broken"}, 0, 3},
		{"failing 4", "", "client-key", []string{"broken"}, 0, 3},
		{"no file of the API", "", "client-key", []string{"UPPER"}, 0, 0},
	} {
		n := ask(tc.query, tc.header, tc.uris...) - ask(tc.query, tc.header) - len(tc.uris)*part
		mu.Lock()
		g := gets["/gw/v1beta/files/"+tc.uris[0]]
		mu.Unlock()
		if n != tc.want || g != tc.gets {
			t.Errorf("%s: %d tokens for the file (want %d), %d gets of it (want %d)", tc.name, n, tc.want, g, tc.gets)
		}
	}
	// A request whose deadline leaves no time asks nothing and counts the
	// file nothing; a later one asks.
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done() // past its deadline and done (on a busy machine the first can come well before the second)
	req := post(t, srv.URL+"/gw/v1beta/models/gemini-3-flash-preview:generateContent", []byte(`{"contents":[{"role":"user","parts":[{"fileData":{"mimeType":"video/mp4","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/vid-3"}}]}]}`)).WithContext(ctx)
	req.Header.Set("X-Goog-Api-Key", "client-key")
	if _, err := mw(req, next); err == nil {
		t.Error("a request past its deadline went out")
	}
	mu.Lock()
	n := gets["/gw/v1beta/files/vid-3"]
	mu.Unlock()
	if got := ask("", "client-key", "vid-3") - ask("", "client-key") - part; n != 0 || got != video {
		t.Errorf("a request past its deadline asked %d times; the next one counted %d tokens, want %d", n, got, video)
	}
	// A lookup slower than its asker waits goes on after the middleware
	// has returned, while the caller reuses its request (run with -race):
	// one get, with the caller's key and path as they were.
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req = post(t, srv.URL+"/gw/v1beta/models/gemini-3-flash-preview:generateContent", []byte(`{"contents":[{"role":"user","parts":[{"fileData":{"mimeType":"video/mp4","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/vid-slow"}}]}]}`)).WithContext(ctx)
	req.Header.Set("X-Goog-Api-Key", "client-key")
	resp, err := mw(req, next)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req.Header.Set("X-Goog-Api-Key", "another-key")
	req.URL.Path = "/elsewhere"
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if n := gets["/gw/v1beta/files/vid-slow"]; n != 1 || slowKey != "client-key" {
		t.Errorf("the slow file: %d gets (want 1), with key %q", n, slowKey)
	}
	for p := range gets {
		if !strings.HasPrefix(p, "/gw/v1beta/files/") {
			t.Errorf("a get off the request's base path: %s", p)
		}
	}
}
