package anthropic

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/swcmem/swc"
)

// TestAPIVersion: by default the SDK's API version goes out and no
// temperature (that version has none); with APIVersion 2023-06-01 that
// header goes out with "temperature": the request's. WireKey tells the two
// apart, so a response cache never mixes them.
func TestAPIVersion(t *testing.T) {
	var version string
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		version = r.Header.Get("anthropic-version")
		b, _ := io.ReadAll(r.Body)
		body = nil
		json.Unmarshal(b, &body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, okBody("pong"))
	}))
	defer srv.Close()
	req := pingReq
	req.Temperature = 0
	keys := map[string]bool{}
	for _, tt := range []struct {
		set, header string
		temperature bool
	}{
		{"", SDKAPIVersion, false},
		{SDKAPIVersion, SDKAPIVersion, false},
		{"2023-06-01", "2023-06-01", true},
	} {
		l, _ := newTestLLM(t, srv.URL, func(c *Config) { c.APIVersion = tt.set })
		if _, err := l.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		temp, sent := body["temperature"]
		if version != tt.header || sent != tt.temperature || (sent && temp != 0.0) {
			t.Errorf("APIVersion %q: sent anthropic-version %q, temperature %v (%v); want %q, temperature sent %v",
				tt.set, version, temp, sent, tt.header, tt.temperature)
		}
		keys[l.WireKey(req)] = true
	}
	if len(keys) != 2 {
		t.Errorf("WireKey gives %d distinct keys for the two versions: %v", len(keys), keys)
	}
	var _ swc.WireKeyer = (*LLM)(nil)
}
