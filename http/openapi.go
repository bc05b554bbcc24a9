package http

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"net/http"
	"strings"
	"sync"
)

// OpenAPI returns the OpenAPI 3.1 document of the service's routes
// (openapi.json beside this file, served at GET /openapi.json), from which
// clients in any language can be generated. TestOpenAPI fails when a
// route, parameter, status or error shape of the server differs from it.
// The binary holds it gzipped (openapi.json.gz, 0.055 of its size,
// 149 KB less binary; TestOpenAPIGzip fails when the two differ, and `go
// test ./http -run TestOpenAPIGzip -update` writes it again), unzipped
// on first use (0.3 ms) and shared: the caller must not change it.
var OpenAPI = sync.OnceValue(func() []byte { return gunzip(openAPIGzip) })

//go:embed openapi.json.gz
var openAPIGzip []byte

// gunzip returns the bytes gzipped in b; it panics when b is not gzip,
// which only a bad build can embed.
func gunzip(b []byte) []byte {
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		panic("http: openapi.json.gz: " + err.Error())
	}
	out, err := io.ReadAll(r)
	if err != nil {
		panic("http: openapi.json.gz: " + err.Error())
	}
	return out
}

// serveOpenAPI writes the document, gzipped as embedded to a client that
// accepts gzip.
func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Add("Vary", "Accept-Encoding")
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(openAPIGzip)
		return
	}
	w.Write(OpenAPI())
}

// acceptsGzip reports whether an Accept-Encoding value names gzip with a
// non-zero weight.
func acceptsGzip(v string) bool {
	for c := range strings.SplitSeq(v, ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(c), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			q = strings.ReplaceAll(strings.TrimSpace(q), " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
