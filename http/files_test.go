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
