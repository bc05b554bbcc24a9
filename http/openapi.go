package http

import (
	_ "embed"
	"net/http"
)

// OpenAPI is the OpenAPI 3.1 document of the service's routes
// (openapi.json beside this file, served at GET /openapi.json), from which
// clients in any language can be generated. TestOpenAPI fails when a
// route, parameter, status or error shape of the server differs from it.
//
//go:embed openapi.json
var OpenAPI []byte

func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(OpenAPI)
}
