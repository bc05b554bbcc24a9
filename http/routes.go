package http

import (
	"net/http"
	"slices"
)

// routeMux is the server's ServeMux, remembering the pattern of every
// route it serves (Routes; the OpenAPI document's test checks them).
type routeMux struct {
	*http.ServeMux
	patterns []string
}

func newRouteMux() *routeMux { return &routeMux{ServeMux: http.NewServeMux()} }

// Handle registers h for pattern, as http.ServeMux.Handle does.
func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

// Routes returns the patterns of the routes the server serves ("GET
// /healthz", "POST /v1/responses", …; the catch-all "/" is not one), in
// the order they were registered.
func (s *Server) Routes() []string {
	s.Handler()
	return slices.DeleteFunc(slices.Clone(s.patterns), func(p string) bool { return p == "/" })
}
