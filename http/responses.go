package http

import (
	"net/http"

	"github.com/swcmem/swc/chat"
)

// This file is the rest of the surface agents call on their base URL:
// OpenAI's Responses API, compressed like chat completions (its input
// items read by chat.Responses), and the routes swc relays unchanged with
// the server's key once the swc key checks out.

// modePassthrough is X-SWC-Mode of a request swc relayed uncompressed.
const modePassthrough = "passthrough"

func (s *Server) responsesRoutes(mux *routeMux) {
	mux.Handle("POST /v1/responses", s.observe(s.proxyAuthed(protoResponses)))
	// Counts of the request as swc would send it: compressed, then counted
	// by the provider.
	mux.Handle("POST /v1/responses/input_tokens", s.observe(s.proxyAuth(protoResponses, s.proxyCount)))
	mux.Handle("POST /v1/messages/count_tokens", s.observe(s.proxyAuth(protoAnthropic, s.proxyCount)))
	// Relayed as they come.
	relay := func(pattern string, p protocol) {
		mux.Handle(pattern, s.observe(s.proxyAuth(p, s.relay)))
	}
	relay("POST /v1/embeddings", protoOpenAI)
	relay("POST /v1/responses/compact", protoResponses)
	relay("GET /v1/responses/{id}", protoResponses)
	relay("DELETE /v1/responses/{id}", protoResponses)
	relay("POST /v1/responses/{id}/cancel", protoResponses)
	relay("GET /v1/responses/{id}/input_items", protoResponses)
	// Both providers list models at /v1/models: an Anthropic client says
	// so with anthropic-version (its SDKs always send it) or x-api-key; a
	// Gemini client of the API's v1 version with x-goog-api-key or ?key=.
	models := func(w http.ResponseWriter, r *http.Request) {
		if geminiKeyed(r) {
			s.geminiAuth(s.relay).ServeHTTP(w, r)
			return
		}
		p := protoOpenAI
		if r.Header.Get("Anthropic-Version") != "" || r.Header.Get("Authorization") == "" && r.Header.Get("X-Api-Key") != "" {
			p = protoAnthropic
		}
		s.proxyAuth(p, s.relay).ServeHTTP(w, r)
	}
	mux.Handle("GET /v1/models", s.observe(http.HandlerFunc(models)))
	mux.Handle("GET /v1/models/{model}", s.observe(http.HandlerFunc(models)))
}

// responsesHistory returns body with its item references replaced by the
// items they name when swc holds them all (resolveItems), or relays it as
// it came when its history is stored at the provider (providerHistory)
// and reports that it did.
func (s *Server) responsesHistory(w http.ResponseWriter, r *http.Request, up Upstream, body []byte, tenant string) ([]byte, bool) {
	why := chat.ProviderHistory(body)
	if why == "item_reference" {
		var resolved []byte
		if resolved, why = s.resolveItems(tenant, body); why == "" {
			return resolved, false
		}
	}
	return body, s.providerHistory(w, r, up, body, why)
}

// providerHistory relays a Responses request whose history is stored at
// the provider (previous_response_id, conversation, item_reference, or no
// input at all) as it came, since compressing what it carries cannot
// shorten the history the model reads (X-SWC-Passthrough: "provider
// history: " and why); it reports whether it did.
func (s *Server) providerHistory(w http.ResponseWriter, r *http.Request, up Upstream, body []byte, why string) bool {
	if why == "" {
		return false
	}
	s.proxy.metrics.requests.WithLabelValues(protoResponses.name, modePassthrough).Inc()
	s.forward(w, r, protoResponses, up, body, &proxyOut{mode: modePassthrough, passthrough: "provider history: " + why})
	return true
}

// relay forwards the request as it came.
func (s *Server) relay(w http.ResponseWriter, r *http.Request, p protocol, tenant string) {
	up, ok := s.upstream(w, p)
	if !ok {
		return
	}
	var body []byte
	if r.Method != http.MethodGet && r.Method != http.MethodDelete || r.ContentLength > 0 {
		if body, ok = s.readProxyBody(w, r, p, up); !ok {
			return
		}
	}
	s.proxy.metrics.requests.WithLabelValues(p.name, modePassthrough).Inc()
	s.forward(w, r, p, up, body, &proxyOut{mode: modePassthrough})
}

// proxyCount answers a token count of the request as swc would send it:
// compressed (statelessly: a count stores nothing, so X-SWC-Conversation
// is not read), then counted by the provider. A Responses count whose
// history the provider stores is relayed as it came (proxyHandle).
func (s *Server) proxyCount(w http.ResponseWriter, r *http.Request, p protocol, tenant string) {
	if r.Header.Get(HeaderConversation) != "" {
		r = r.Clone(r.Context())
		r.Header.Del(HeaderConversation)
	}
	s.proxyHandle(w, r, p, tenant)
}
