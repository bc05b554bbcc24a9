package http_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	swchttp "github.com/swcmem/swc/http"
)

// TestGeminiFileLengths: a video named by URI counts what Gemini counts
// for it once the proxy has relayed the Files API's answer about it (an
// upload's, then a get's once processed), nothing before, and only for
// the tenant that read it; a request over the budget because of it is
// compressed.
func TestGeminiFileLengths(t *testing.T) {
	e, g := newGeminiEnv(t)
	const uri = "https://generativelanguage.googleapis.com/v1beta/files/vid-1"
	file := func(extra string) string {
		return `{"name":"files/vid-1","mimeType":"video/mp4","sizeBytes":"31250000","uri":"` + uri + `"` + extra + `}`
	}
	g.reply = func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		switch {
		case strings.HasPrefix(r.URL.Path, "/upload/"):
			io.WriteString(w, `{"file":`+file(`,"state":"PROCESSING"`)+`}`)
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
	// Another tenant's request naming the URI: not known to it.
	if n, _ := ask(e.newKey("other")); n != unknown {
		t.Errorf("another tenant: %d tokens, want %d", n, unknown)
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
