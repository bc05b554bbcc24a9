package http

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/httpbody"
)

var errTooLarge = errors.New("request body too large")

// readProxyBody reads r's body within the proxy's limit (readLimited,
// ProxyConfig.MaxBody). A body past it goes upstream as it came
// (streamThrough), and when reading fails the error is written to w;
// both return false.
func (s *Server) readProxyBody(w http.ResponseWriter, r *http.Request, p protocol, up Upstream) ([]byte, bool) {
	body, err := readLimited(r, s.proxyMaxBody())
	if err != nil {
		if err == errTooLarge {
			s.streamThrough(w, r, p, up, body)
			return nil, false
		}
		s.rejecter(w, p)(http.StatusBadRequest, "invalid_request_error", "reading body: "+err.Error())
		return nil, false
	}
	return body, true
}

// rejecter returns what answers a proxied request of protocol p with an
// error of swc's own, in p's shape, counted as rejected.
func (s *Server) rejecter(w http.ResponseWriter, p protocol) func(status int, code, msg string) {
	return func(status int, code, msg string) {
		s.proxy.metrics.requests.WithLabelValues(p.name, "rejected").Inc()
		proxyError(w, p, status, code, msg)
	}
}

// readLimited reads the request body, or returns errTooLarge past limit
// bytes with what it read (nothing when the Content-Length said so
// first); the rest is still in r.Body.
func readLimited(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errTooLarge
	}
	b, err := httpbody.ReadAll(io.LimitReader(r.Body, limit+1), r.ContentLength)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return b, errTooLarge
	}
	return b, nil
}

// streamThrough forwards a request whose body is over --max-proxy-body
// as it came, unread past head (the bytes already read) and never held whole:
// swc compresses what it holds, and a provider takes bodies far larger
// (Anthropic's Messages 32 MB, Gemini's 20 MB of inline data), so it is
// the provider's to answer, as it would without swc. X-SWC-Mode is
// passthrough and X-SWC-Passthrough names the limit; with --rate-bytes
// it counts as its Content-Length (or as the limit, when it has none).
func (s *Server) streamThrough(w http.ResponseWriter, r *http.Request, p protocol, up Upstream, head []byte) {
	limit := s.proxyMaxBody()
	fail := s.rejecter(w, p)
	if !s.allowBody(w, r, int(min(max(r.ContentLength, limit+1), 1<<30)), fail) {
		return
	}
	reason := "max-proxy-body: request body over " + strconv.FormatInt(limit, 10) + " bytes, forwarded as it came (swc serve --max-proxy-body)"
	s.logger().Warn("proxy: passthrough", "protocol", p.name, "reason", reason)
	s.proxy.metrics.requests.WithLabelValues(p.name, modePassthrough).Inc()
	body := upstreamBody{r: io.MultiReader(bytes.NewReader(head), r.Body), n: r.ContentLength}
	s.forwardBody(w, r, p, up, body, &proxyOut{mode: modePassthrough, passthrough: reason, tools: -1})
}

// upstreamBody is the body of an upstream request: r (nil for none) and
// its length n (0 or less: unknown).
type upstreamBody struct {
	r io.Reader
	n int64
}

// bodyOf is the upstream body of bytes b (none when nil).
func bodyOf(b []byte) upstreamBody {
	if b == nil {
		return upstreamBody{}
	}
	return upstreamBody{r: bytes.NewReader(b), n: int64(len(b))}
}

// hopHeaders are not forwarded in either direction (RFC 9110 §7.6.1), nor
// are the client's credentials and swc's own headers.
var hopHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true, "Proxy-Authorization": true,
	"Proxy-Connection": true, "Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
}

// connectionTokens returns the headers h's Connection header names: they
// are hop-by-hop too (RFC 9110 §7.6.1), in canonical form.
func connectionTokens(h http.Header) map[string]bool {
	var out map[string]bool
	for _, v := range h["Connection"] {
		for _, tok := range strings.Split(v, ",") {
			if tok = strings.TrimSpace(tok); tok != "" {
				if out == nil {
					out = map[string]bool{}
				}
				out[http.CanonicalHeaderKey(tok)] = true
			}
		}
	}
	return out
}

// netErrorKind says what kind of failure err is, in words that name no
// URL, host or port: "timeout", "connection refused", "connection reset",
// "name not resolved" or "connection error".
func netErrorKind(err error) string {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection reset"
	case errors.As(err, &dns):
		return "name not resolved"
	}
	return "connection error"
}

// dropRequest lists request headers swc sets itself or must not pass on.
var dropRequest = map[string]bool{
	"Authorization": true, "X-Api-Key": true, "X-Goog-Api-Key": true, "Cookie": true, "Content-Length": true,
	"Accept-Encoding": true, // the transport negotiates (and undoes) compression itself
	"Host":            true,
}

// upstreamURL returns where a request to path (escaped, "/v1/…") goes
// for protocol p: OpenAI's base URL holds /v1 ("https://api.openai.com/v1"
// + "/chat/completions"), Anthropic's may or may not.
func upstreamURL(p protocol, base, path, rawQuery string) string {
	base = strings.TrimRight(base, "/")
	u := base + strings.TrimPrefix(path, "/v1")
	if p == protoAnthropic && !strings.HasSuffix(base, "/v1") {
		u = base + path
	}
	if p.google() {
		u = geminiURL(base, path)
	}
	if rawQuery != "" {
		u += "?" + rawQuery
	}
	return u
}

// forward sends body (nil for none) upstream, with the request's method
// and path, the client's headers (minus its
// credentials and hop-by-hop headers) and the server's key, and writes the
// upstream's status, headers and body back as they come: an event stream
// is flushed event by event. The client's context bounds the upstream
// request, so a client that goes away cancels it. Upstream errors (429,
// 5xx) are passed through, never retried: the client's SDK retries.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, p protocol, up Upstream, body []byte, out *proxyOut) {
	s.forwardBody(w, r, p, up, bodyOf(body), out)
}

// forwardBody is forward with a body read as it goes upstream.
func (s *Server) forwardBody(w http.ResponseWriter, r *http.Request, p protocol, up Upstream, body upstreamBody, out *proxyOut) {
	resp := s.sendUpstreamBody(w, r, p, up, body)
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	s.responseHeaders(w.Header(), resp, out)
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{}) // a stream may outlast the server's write timeout
	w.WriteHeader(resp.StatusCode)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		streamEvents(w, rc, resp.Body)
		return
	}
	if p == protoGemini { // :streamGenerateContent without ?alt=sse: a JSON array, streamed
		copyFlushing(w, rc, resp.Body)
		return
	}
	io.Copy(w, resp.Body)
}

// sendUpstream sends body (nil for none) upstream as forward does and
// counts the answer's status; when no answer comes (the upstream URL is
// not usable, or the request failed) it writes the error to w and
// returns nil.
func (s *Server) sendUpstream(w http.ResponseWriter, r *http.Request, p protocol, up Upstream, body []byte) *http.Response {
	return s.sendUpstreamBody(w, r, p, up, bodyOf(body))
}

// sendUpstreamBody is sendUpstream with a body read as it goes upstream.
func (s *Server) sendUpstreamBody(w http.ResponseWriter, r *http.Request, p protocol, up Upstream, body upstreamBody) *http.Response {
	req, err := s.upstreamRequest(r, p, up, body)
	if err != nil {
		s.logger().Error("proxy: upstream URL", "protocol", p.name, "err", err)
		proxyError(w, p, http.StatusInternalServerError, "api_error", "the "+p.name+" upstream URL is not usable (the server's log says why)")
		return nil
	}
	resp, err := s.proxy.client.Do(req)
	if err != nil {
		s.upstreamFailed(w, r, p, err)
		return nil
	}
	s.proxy.metrics.upstream.WithLabelValues(p.name, strconv.Itoa(resp.StatusCode)).Inc()
	if k, ok := r.Context().Value(authKey{}).(swc.APIKey); ok && p.google() {
		s.tapFiles(r, k.TenantID, resp)
	}
	if p == protoResponses {
		if k, ok := r.Context().Value(authKey{}).(swc.APIKey); ok {
			s.tapItems(r, k.TenantID, resp)
			if r.Method == http.MethodDelete && (resp.StatusCode/100 == 2 || resp.StatusCode == http.StatusNotFound) {
				s.forgetResponse(k.TenantID, r.PathValue("id"))
			}
		}
	}
	return resp
}

// upstreamRequest returns the upstream request of r with body (nil for
// none): r's method and path, the client's headers (minus its credentials
// and hop-by-hop headers) and the server's key, bound to r's context.
func (s *Server) upstreamRequest(r *http.Request, p protocol, up Upstream, body upstreamBody) (*http.Request, error) {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, upstreamURL(p, up.URL, r.URL.EscapedPath(), r.URL.RawQuery), body.r)
	if err != nil {
		return nil, err
	}
	if body.r != nil && body.n > 0 {
		req.ContentLength = body.n // else unknown: sent chunked
	}
	hop := connectionTokens(r.Header)
	for k, vs := range r.Header {
		if hopHeaders[k] || hop[k] || dropRequest[k] || strings.HasPrefix(k, "X-Swc-") {
			continue
		}
		req.Header[k] = vs
	}
	if req.Header.Get("Content-Type") == "" && body.r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if up.Key != "" {
		if p == protoAnthropic {
			req.Header.Set("X-Api-Key", up.Key)
		} else if p.google() {
			req.Header.Set("X-Goog-Api-Key", up.Key)
		} else {
			req.Header.Set("Authorization", "Bearer "+up.Key)
		}
	}
	return req, nil
}

// upstreamFailed writes 502 for an upstream request that failed with err
// (nothing when the client went away: the upstream request is cancelled).
func (s *Server) upstreamFailed(w http.ResponseWriter, r *http.Request, p protocol, err error) {
	if r.Context().Err() != nil {
		return
	}
	s.logger().Warn("proxy: upstream", "protocol", p.name, "err", err)
	proxyError(w, p, http.StatusBadGateway, "upstream_unreachable", "upstream "+p.name+" request failed ("+netErrorKind(err)+"; the server's log has the details)")
}

// responseHeaders sets h to the upstream response's headers (minus
// hop-by-hop ones) and swc's own.
func (s *Server) responseHeaders(h http.Header, resp *http.Response, out *proxyOut) {
	hop := connectionTokens(resp.Header)
	for k, vs := range resp.Header {
		if hopHeaders[k] || hop[k] || k == "Content-Length" {
			continue
		}
		h[k] = vs
	}
	if resp.ContentLength >= 0 && !resp.Uncompressed {
		h.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
	}
	if out.mode != modePassthrough {
		h.Set(HeaderTokensBefore, strconv.Itoa(out.before))
		h.Set(HeaderTokensAfter, strconv.Itoa(out.after))
	}
	h.Set(HeaderMode, out.mode)
	setProxyHeaders(h, out)
	h.Set(HeaderCompacted, strconv.Itoa(out.compacted))
	if out.fallback != "" {
		h.Set(HeaderFallback, out.fallbackReason)
	}
	if out.overBudget > 0 {
		h.Set(HeaderOverBudget, strconv.Itoa(out.overBudget))
	}
	if out.compression != "" {
		h.Set(HeaderCompression, out.compression)
	}
}

// streamEvents copies an SSE stream, flushing at the end of every event
// (a blank line) and whenever nothing more has arrived, so that no event
// waits in a buffer for the next one.
func streamEvents(w io.Writer, rc *http.ResponseController, body io.Reader) {
	br := bufio.NewReaderSize(body, 32<<10)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if _, werr := w.Write(line); werr != nil {
				return
			}
			if isBlank(line) || br.Buffered() == 0 {
				if rc.Flush() != nil {
					return
				}
			}
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			rc.Flush()
			return
		}
	}
}

func isBlank(line []byte) bool {
	return len(line) == 1 || (len(line) == 2 && line[0] == '\r')
}
