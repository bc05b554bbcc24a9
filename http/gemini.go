package http

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/swcmem/swc/chat"
)

// This file is the Gemini API through the proxy: POST
// /v1beta/models/{model}:generateContent and :streamGenerateContent (and
// the same under /v1alpha and /v1) compressed as the other protocols are
// (the contents read by chat.Gemini), :countTokens counted as swc would
// send the request, any other method of a model, GET /v1beta/models, the
// Files API, cached contents and the Interactions API relayed. Gemini clients send their key as
// x-goog-api-key or ?key=; swc takes its own key there (or as a Bearer
// token), never passes it on, and sends the server's Gemini key as
// x-goog-api-key.

var (
	protoGemini = protocol{"gemini", chat.Gemini}
	// protoInteractions is the Interactions API: Gemini's transport (its
	// upstream, key and error shape), its own request format.
	protoInteractions = protocol{"interactions", chat.Interactions}
)

// google reports whether p goes to Google's Gemini API (its upstream, key
// header, URLs and error shape).
func (p protocol) google() bool { return p == protoGemini || p == protoInteractions }

func (s *Server) geminiRoutes(mux *routeMux) {
	// {model_method} is "gemini-2.5-flash:generateContent": a path
	// wildcard is a whole segment. The API serves the same methods under
	// v1beta (the SDKs' default), v1alpha (where Gemini 3's per-part
	// mediaResolution started) and v1 (the stable version, whose models
	// list is OpenAI's and Anthropic's route: GET /v1/models tells them
	// apart by the key's header).
	for _, v := range geminiVersions {
		mux.Handle("POST "+v+"/models/{model_method}", s.observe(s.geminiAuth(s.geminiCall)))
	}
	for _, v := range []string{"/v1beta", "/v1alpha"} {
		mux.Handle("GET "+v+"/models", s.observe(s.geminiAuth(s.relay)))
		mux.Handle("GET "+v+"/models/{model}", s.observe(s.geminiAuth(s.relay)))
	}
	// The resources a request may name, relayed on the same base URL, as
	// an SDK pointed at swc calls them there: the Files API (geminiUpload)
	// and cached contents; and the Interactions API. Under each version:
	// @google/genai 3 calls v1 by default, earlier SDKs v1beta.
	for _, v := range geminiVersions {
		mux.Handle("POST /upload"+v+"/files", s.observe(s.geminiAuth(s.geminiUpload)))
		for _, route := range []string{
			"GET /files", "GET /files/{name}", "DELETE /files/{name}",
			"POST /cachedContents", "GET /cachedContents", "GET /cachedContents/{name}",
			"PATCH /cachedContents/{name}", "DELETE /cachedContents/{name}",
			// The Interactions API's other methods (interactionsCreate
			// compresses a new one).
			"GET /interactions/{id}", "DELETE /interactions/{id}", "POST /interactions/{id}/cancel",
		} {
			method, path, _ := strings.Cut(route, " ")
			mux.Handle(method+" "+v+path, s.observe(s.geminiAuth(s.relay)))
		}
		mux.Handle("POST "+v+"/interactions", s.observe(s.geminiAuth(s.interactionsCreate)))
	}
}

// interactionsCreate serves POST /v1beta/interactions (and /v1, /v1alpha), the Interactions
// API (Google's recommended API for new projects since June 2026): an
// interaction whose history comes in its input ("store": false, or a
// client that keeps its own) is compressed as a generateContent request
// is; one that continues another (previous_interaction_id), whose history
// Google keeps, is relayed as it came.
func (s *Server) interactionsCreate(w http.ResponseWriter, r *http.Request, _ protocol, tenant string) {
	s.proxyHandle(w, r, protoInteractions, tenant)
}

// geminiKeyed reports whether r carries its key as a Gemini client sends
// it: x-goog-api-key, or ?key= without an Authorization header (which
// then would be the key an OpenAI client sent).
func geminiKeyed(r *http.Request) bool {
	if strings.TrimSpace(r.Header.Get("X-Goog-Api-Key")) != "" {
		return true
	}
	_, key := withoutKey(r.URL.RawQuery)
	return key != "" && r.Header.Get("Authorization") == ""
}

// geminiAuth authenticates a Gemini request: the swc key as x-goog-api-key,
// ?key= or "Authorization: Bearer". The handler gets the request without
// the key's header and query parameter, so that forward never sends it.
func (s *Server) geminiAuth(h func(w http.ResponseWriter, r *http.Request, p protocol, tenant string)) http.Handler {
	inner := s.proxyAuth(protoGemini, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimSpace(r.Header.Get("X-Goog-Api-Key"))
		query, qkey := withoutKey(r.URL.RawQuery)
		if key == "" {
			key = qkey
		}
		r = r.Clone(r.Context())
		r.Header.Del("X-Goog-Api-Key")
		r.URL.RawQuery = query
		if key != "" {
			r.Header.Set("Authorization", "Bearer "+key)
		}
		inner.ServeHTTP(w, r)
	})
}

// withoutKey returns rawQuery without its "key" parameters, the other
// parameters as they came, and the first key's value.
func withoutKey(rawQuery string) (query, key string) {
	if rawQuery == "" {
		return "", ""
	}
	var keep []string
	found := false
	for _, kv := range strings.Split(rawQuery, "&") {
		name, val, _ := strings.Cut(kv, "=")
		if n, err := url.QueryUnescape(name); err == nil && n == "key" {
			if !found {
				key, _ = url.QueryUnescape(val)
				found = true
			}
			continue
		}
		keep = append(keep, kv)
	}
	return strings.Join(keep, "&"), key
}

// geminiUpload relays a request of the Files API's uploads, its body
// streamed (a file's bytes, as large as the upstream takes, not held),
// and points the upload URL Google answers a resumable upload's start
// with (X-Goog-Upload-URL, X-Goog-Upload-Control-URL) back at swc: the
// client then sends the bytes through swc, which puts the server's key
// in place of its own, rather than to Google with the swc key.
func (s *Server) geminiUpload(w http.ResponseWriter, r *http.Request, p protocol, tenant string) {
	up, ok := s.upstream(w, p)
	if !ok {
		return
	}
	if !s.allowBody(w, r, int(min(max(r.ContentLength, 0), 1<<30)), s.rejecter(w, p)) {
		return
	}
	s.proxy.metrics.requests.WithLabelValues(p.name, modePassthrough).Inc()
	var body upstreamBody
	if r.ContentLength != 0 {
		body = upstreamBody{r: r.Body, n: r.ContentLength}
	}
	uw := &uploadURLs{ResponseWriter: w, from: origin(up.URL), to: clientOrigin(r)}
	s.forwardBody(uw, r, p, up, body, &proxyOut{mode: modePassthrough})
}

// uploadURLs rewrites, as the response's header is written, the upload
// URLs the upstream answers with from its origin to swc's.
type uploadURLs struct {
	http.ResponseWriter
	from, to string
}

func (u *uploadURLs) WriteHeader(code int) {
	h := u.Header()
	for _, k := range []string{"X-Goog-Upload-Url", "X-Goog-Upload-Control-Url"} {
		if v := h.Get(k); u.from != "" && strings.HasPrefix(v, u.from+"/") {
			h.Set(k, u.to+v[len(u.from):])
		}
	}
	u.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (u *uploadURLs) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// origin returns the scheme and host of URL raw ("" when it has none).
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// clientOrigin returns the scheme and host the client reached swc at:
// the request's Host, https behind TLS or when a proxy in front says so
// (X-Forwarded-Proto).
func clientOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if f, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ","); strings.TrimSpace(f) == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// geminiCall serves POST /v1beta/models/{model}:{method}: generateContent
// and streamGenerateContent compressed, countTokens counted as swc would
// send the request, other methods (embedContent, batchEmbedContents, …)
// relayed.
func (s *Server) geminiCall(w http.ResponseWriter, r *http.Request, p protocol, tenant string) {
	model, method, ok := strings.Cut(r.PathValue("model_method"), ":")
	if !ok || model == "" || method == "" {
		s.rejecter(w, p)(http.StatusNotFound, "not_found", "no method in "+strconv.Quote(r.URL.Path)+" (want …/models/MODEL:generateContent, :streamGenerateContent or :countTokens)")
		return
	}
	switch method {
	case "generateContent", "streamGenerateContent":
		s.proxyHandle(w, r, p, tenant)
	case "countTokens":
		s.geminiCount(w, r, p, tenant, model)
	default:
		s.relay(w, r, p, tenant)
	}
}

// geminiCount compresses a countTokens body as its generateContent
// request would be and has the upstream count it. A body of contents
// alone is sent as {"generateContentRequest":{"model":…,"contents":…}},
// the form that may carry the systemInstruction the memory goes in.
func (s *Server) geminiCount(w http.ResponseWriter, r *http.Request, p protocol, tenant, model string) {
	up, ok := s.upstream(w, p)
	if !ok {
		return
	}
	body, ok := s.readProxyBody(w, r, p, up)
	if !ok {
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) == nil && len(obj) == 1 && obj["contents"] != nil {
		m, _ := json.Marshal("models/" + model)
		body = []byte(`{"generateContentRequest":{"contents":` + string(obj["contents"]) + `,"model":` + string(m) + `}}`)
	}
	r = r.Clone(r.Context())
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	s.proxyCount(w, r, p, tenant)
}

// geminiStatus is the canonical status name of an HTTP status in Google's
// error shape.
func geminiStatus(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusNotImplemented:
		return "UNIMPLEMENTED"
	case http.StatusBadGateway, http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout:
		return "DEADLINE_EXCEEDED"
	}
	return "INTERNAL"
}

// geminiError writes Google's error shape:
// {"error":{"code":400,"message":"…","status":"INVALID_ARGUMENT"}}.
func geminiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": "swc: " + msg, "status": geminiStatus(status)}})
}

// geminiURL returns base + path: a path naming the API's version
// ("/v1beta/…", "/v1alpha/…", "/v1/…") or an upload ("/upload/v1beta/…")
// goes after the base without the version the base may end with, so that
// the version is the request's, written once.
func geminiURL(base, path string) string {
	versioned := strings.HasPrefix(path, "/upload/")
	for _, v := range geminiVersions {
		versioned = versioned || strings.HasPrefix(path, v+"/")
	}
	if !versioned {
		return base + path
	}
	for _, v := range geminiVersions {
		if strings.HasSuffix(base, v) {
			return strings.TrimSuffix(base, v) + path
		}
	}
	return base + path
}

// geminiVersions are the API's version segments.
var geminiVersions = []string{"/v1beta", "/v1alpha", "/v1"}

// copyFlushing copies body to w, flushing whatever has arrived: Gemini's
// streamGenerateContent without ?alt=sse streams one JSON array, element
// by element.
func copyFlushing(w io.Writer, rc *http.ResponseController, body io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil || rc.Flush() != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// interactionsRelayed returns why an Interactions body goes as it came
// ("" when swc reads it): one that continues a stored interaction
// (previous_interaction_id: its history is Google's; its input, results
// of calls made before it, may not read on its own), or one without an
// input (an agent's resumed run, a continuation_token alone). in and err
// are what chat.Parse made of body: the body is read again only when it
// did not parse.
func interactionsRelayed(in *chat.Input, err error, body []byte) string {
	var b struct {
		Previous string          `json:"previous_interaction_id"`
		Input    json.RawMessage `json:"input"`
	}
	switch {
	case err == nil:
		json.Unmarshal(in.Body["previous_interaction_id"], &b.Previous)
		b.Input = in.Body["input"]
	case json.Unmarshal(body, &b) != nil:
		return ""
	}
	switch {
	case b.Previous != "":
		return "provider history: previous_interaction_id"
	case len(bytes.TrimSpace(b.Input)) == 0 || string(bytes.TrimSpace(b.Input)) == "null":
		return "no input"
	}
	return ""
}
