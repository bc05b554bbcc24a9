package http

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mcp"
)

// mcpRoutes serves the memory's MCP tools (package mcp) at /mcp over the
// streamable HTTP transport, authenticated and rate-limited as the /v1
// API is: the key's tenant scopes every tool. The handler is stateless
// (no MCP session is kept: any replica answers any request) and answers
// in JSON; GET and DELETE, which only sessions use, are 405. The SDK's
// localhost check of the Host header (against DNS rebinding of an open
// local server) is off: every request carries the key.
func (s *Server) mcpRoutes(mux *routeMux) {
	m := mcp.New(s.store)
	m.Now, m.Rule, m.MaxNote, m.Logger = s.Now, s.Rule, s.MaxMessage, s.logger()
	m.Appended = func(ctx context.Context, tenant, conv string, res swc.AppendResult) {
		s.enqueueAfter(ctx, tenant, conv, res)
	}
	srv := m.Server(mcp.FromToken)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, DisableLocalhostProtection: true, MaxRequestBodyBytes: s.MaxBody})
	// The SDK gives a tool the verified token's UserID: the key's tenant.
	verified := auth.RequireBearerToken(func(ctx context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		k, ok := r.Context().Value(authKey{}).(swc.APIKey)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: k.TenantID}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	serve := s.observe(s.authed(func(w http.ResponseWriter, r *http.Request, _ string) {
		if r.Method == http.MethodPost {
			body, ok := s.readBody(w, r)
			if !ok || !s.allowBody(w, r, len(body), func(status int, code, msg string) { writeError(w, status, code, msg) }) {
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		verified.ServeHTTP(w, r)
	}))
	for _, p := range []string{"POST /mcp", "GET /mcp", "DELETE /mcp"} {
		mux.Handle(p, serve)
	}
}
