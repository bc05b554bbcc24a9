package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/swcmem/swc/internal/transcript"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/locomo"
)

// TestEpochAcrossProcesses: two `swc serve` processes (each its own
// database, as replicas behind a load balancer need not share one for
// stateless requests) send a LoCoMo agent transcript upstream byte for
// byte alike, request by request, in both protocols; so does one of them
// after a restart, its memos gone. Between compactions each request is
// the one before plus the new messages.
func TestEpochAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts swc serve processes")
	}
	convs, _, err := locomo.LoadFile(scaleLoCoMo)
	if err != nil {
		t.Skipf("LoCoMo data not found at %s: %v", scaleLoCoMo, err)
	}
	tr, err := transcript.Agent(convs[0], transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string][]byte{} // "replica/protocol/request" → body sent upstream
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.Header.Get("X-Test-Request")] = b
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/messages" {
			io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
			return
		}
		io.WriteString(w, `{"id":"cc-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`)
	}))
	defer up.Close()
	dir := t.TempDir()
	dbA, dbB := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	keyA, keyB := newKey(t, dbA, "acme"), newKey(t, dbB, "acme")
	serve := func(db string) *serveProc {
		return startServe(t, nil, "--db", db, "--addr", "127.0.0.1:0", "--rate", "-1", "--log-level", "error",
			"--upstream-openai", up.URL+"/v1", "--upstream-anthropic", up.URL)
	}
	a, b := serve(dbA), serve(dbB)

	points := loadtest.RequestPoints(tr.Messages)
	points = points[:min(len(points), 150)]
	send := func(p *serveProc, key, tag, proto string, k int) {
		t.Helper()
		var body []byte
		var err error
		path := "/v1/chat/completions"
		if proto == "anthropic" {
			path = "/v1/messages"
			body, err = loadtest.AnthropicBody(tr.Messages[:points[k]])
		} else {
			body, err = loadtest.RequestBody(tr.Messages[:points[k]], false)
		}
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, p.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-SWC-Budget", "2000")
		req.Header.Set("X-Test-Request", fmt.Sprintf("%s/%s/%d", tag, proto, k))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s request %d: %d %s", tag, proto, k, resp.StatusCode, msg)
		}
	}
	body := func(tag, proto string, k int) []byte {
		mu.Lock()
		defer mu.Unlock()
		return got[fmt.Sprintf("%s/%s/%d", tag, proto, k)]
	}
	for _, proto := range []string{"openai", "anthropic"} {
		compactions := 0
		for k := range points {
			send(a, keyA, "a", proto, k)
			send(b, keyB, "b", proto, k)
			ba, bb := body("a", proto, k), body("b", proto, k)
			if len(ba) == 0 || !bytes.Equal(ba, bb) {
				t.Fatalf("%s request %d: the two processes sent different bodies (%d and %d bytes)", proto, k, len(ba), len(bb))
			}
			if k == 0 {
				continue
			}
			prev := body("a", proto, k-1)
			switch pm, cm := memoryText(prev), memoryText(ba); {
			case cm == nil:
			case !bytes.Equal(pm, cm):
				compactions++
			case proto == "openai" && !bytes.HasPrefix(ba, prev[:len(prev)-2]):
				// (Anthropic requests differ where the client moved its
				// cache_control mark to the new last message.)
				t.Errorf("%s request %d: same memory, but not the request before plus new messages", proto, k)
			}
		}
		if compactions == 0 || compactions > len(points)/10 {
			t.Errorf("%s: %d compactions in %d requests", proto, compactions, len(points))
		}
		t.Logf("%s: %d requests, %d compactions, byte for byte alike", proto, len(points), compactions)
	}

	// A restart forgets every memo: the same requests, the same bytes.
	a.Kill()
	a2 := serve(dbA)
	for _, proto := range []string{"openai", "anthropic"} {
		for k := len(points) - 5; k < len(points); k++ {
			send(a2, keyA, "a2", proto, k)
			if !bytes.Equal(body("a2", proto, k), body("a", proto, k)) {
				t.Errorf("%s request %d: other bytes after a restart", proto, k)
			}
		}
	}
}

// sharesMemory reports whether two sent bodies hold the same memory: the
// text from the preamble to the end of its JSON string.
func sharesMemory(a, b []byte) bool {
	return bytes.Equal(memoryText(a), memoryText(b))
}

func memoryText(body []byte) []byte {
	i := bytes.Index(body, []byte("Earlier conversation"))
	if i < 0 {
		return nil
	}
	rest := body[i:]
	for j := 0; j < len(rest); j++ {
		if rest[j] == '\\' {
			j++
			continue
		}
		if rest[j] == '"' {
			return rest[:j]
		}
	}
	return rest
}
