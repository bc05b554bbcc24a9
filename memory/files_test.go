package memory

import (
	"io"
	"net/http"
	"strings"
	"testing"
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
