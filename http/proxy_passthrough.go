package http

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/memory"
)

// A request swc cannot parse or compress is not swc's to refuse: the
// provider may well accept it. It goes upstream unchanged (passthrough),
// and the provider answers it, and so does a body too large for swc to
// hold (--max-proxy-body: streamThrough). swc answers 4xx only for its own
// concerns: its key (401), its rate limit (429), its own X-SWC-* headers
// (400) and a body that is not a JSON object at all (400).

// Passthrough headers.
const (
	// HeaderPassthrough, beside "X-SWC-Mode: passthrough", says why a
	// request that swc would compress went upstream unchanged: what swc
	// could not parse or compress in it.
	HeaderPassthrough = "X-SWC-Passthrough"
	// HeaderToolTokens is the tokens of the request's tool definitions
	// ("tools"), which the budget does not cover: the budget covers the
	// instructions and the messages.
	HeaderToolTokens = "X-SWC-Tool-Tokens"
)

// maxReason bounds an X-SWC-Passthrough value in bytes.
const maxReason = 240

// passthrough forwards body as it came, with X-SWC-Mode: passthrough and
// the reason in X-SWC-Passthrough, logs the reason and counts the request.
// tools is the tokens of its tool definitions when known (-1 when not).
func (s *Server) passthrough(w http.ResponseWriter, r *http.Request, p protocol, up Upstream, body []byte, reason string, tools int) {
	reason = headerSafe(reason)
	s.logger().Warn("proxy: passthrough", "protocol", p.name, "reason", reason)
	s.proxy.metrics.requests.WithLabelValues(p.name, modePassthrough).Inc()
	if tools >= 0 {
		s.proxy.metrics.tokens.WithLabelValues("tools").Add(float64(tools))
	}
	s.forward(w, r, p, up, body, &proxyOut{mode: modePassthrough, passthrough: reason, tools: tools, toolsKnown: tools >= 0})
}

// headerSafe returns s as a header value: printable ASCII (anything else
// a '?'), at most maxReason bytes.
func headerSafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < maxReason; i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e {
			c = '?'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// toolKey names tool definitions by the hash of their bytes.
type toolKey struct {
	sum       [32]byte
	tokenizer string
}

// newToolMemo returns the memo of tool definitions' token counts: an
// agent sends the same definitions with every request, so each is counted
// once. About 1 MiB a generation.
func newToolMemo() *memo.Memo[toolKey, int] {
	return memo.New[toolKey, int](1<<20, func(toolKey, int) int { return 64 })
}

// toolTokens returns the tokens of a request's tool definitions (the raw
// value of its "tools" field; 0 for none) with c's tokenizer
// (memory.Compressor.ToolTokens), remembered. The budget covers them only
// under ProxyConfig.HoldBudget.
func (s *Server) toolTokens(c *memory.Compressor, raw json.RawMessage) int {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "[]" {
		return 0
	}
	name := c.Options().Tokenizer
	k := toolKey{sha256.Sum256(raw), name}
	if n, ok := s.proxy.tools.Get(k); ok {
		return n
	}
	n := c.ToolTokens(raw)
	s.proxy.tools.Put(k, n)
	return n
}

// setProxyHeaders writes X-SWC-Tool-Tokens when the count is known and
// X-SWC-Passthrough when there is a reason.
func setProxyHeaders(h http.Header, out *proxyOut) {
	if out.toolsKnown {
		h.Set(HeaderToolTokens, strconv.Itoa(out.tools))
	}
	if out.passthrough != "" {
		h.Set(HeaderPassthrough, out.passthrough)
	}
}
