package http

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "write openapi.json.gz from openapi.json")

// TestOpenAPIGzip: the gzipped document the binary embeds is openapi.json
// (with -update it is written from it), and GET /openapi.json gives it
// gzipped only to a client accepting gzip.
func TestOpenAPIGzip(t *testing.T) {
	src, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		w.Write(src)
		w.Close()
		if err := os.WriteFile("openapi.json.gz", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("wrote openapi.json.gz; rebuild for the embedded copy")
		return
	}
	if !bytes.Equal(OpenAPI(), src) {
		t.Fatal("openapi.json.gz is not openapi.json: run go test ./http -run TestOpenAPIGzip -update")
	}
	for _, tc := range []struct {
		accept string
		gz     bool
	}{
		{"", false},
		{"identity", false},
		{"gzip", true},
		{"br, GZIP;q=0.5", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000, deflate", false},
		{"x-gzip", false},
	} {
		r := httptest.NewRequest("GET", "/openapi.json", nil)
		if tc.accept != "" {
			r.Header.Set("Accept-Encoding", tc.accept)
		}
		w := httptest.NewRecorder()
		serveOpenAPI(w, r)
		body := w.Body.Bytes()
		if got := w.Header().Get("Content-Encoding") == "gzip"; got != tc.gz {
			t.Errorf("Accept-Encoding %q: gzipped %v, want %v", tc.accept, got, tc.gz)
		}
		if tc.gz {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatalf("Accept-Encoding %q: %v", tc.accept, err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(body, src) {
			t.Errorf("Accept-Encoding %q: the body is not openapi.json", tc.accept)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" || w.Code != http.StatusOK {
			t.Errorf("Accept-Encoding %q: %d %s", tc.accept, w.Code, ct)
		}
	}
}
