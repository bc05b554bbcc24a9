package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/swcmem/swc/tokens"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/observe"
)

// Recall inside the proxy: the originals of the observations compression
// stubbed or dropped are kept, per tenant, in a byte-bounded cache with a
// time to live, addressed by their handle (observe.Handle); a request
// that declares tools and was compressed (it holds at least one handle)
// is sent with one more tool, swc_recall, which swc answers itself
// (recall_rounds.go). A request that fits goes out as it came.

// HeaderRecall, on a request, set to "off" sends it without swc_recall;
// on a response, it is how many swc_recall calls swc answered for it.
const HeaderRecall = "X-SWC-Recall"

// HeaderCompression says what compression did to the request's
// conversation messages: "kept=N; kept_tokens=T; masked=N;
// masked_tokens=T; stub_tokens=T; dropped=N; dropped_tokens=T;
// clipped=N; clipped_tokens=T; clip_tokens=T" (masked: stubbed in place,
// their tokens before and as stubs; clipped: a tool loop's old turns
// sent with their prose clipped or without their reasoning blocks, their
// tokens before and as sent).
const HeaderCompression = "X-SWC-Compression"

// Recall defaults (ProxyConfig's Recall… fields).
const (
	DefaultRecallRounds = 3
	DefaultRecallBytes  = 32 << 20
	DefaultRecallTTL    = time.Hour
)

// recallTool is the tool's name.
const recallTool = "swc_recall"

// The tool's definitions: the same bytes on every request, so that the
// provider's prompt cache of the tools holds.
const (
	recallDescription = `Read the original of an earlier tool output or conversation shortened or left out to save context: ` +
		`pass the handle it shows ([swc:h3f9a2c1b0 …]), or a query to search the conversation.`
	recallHandleDescription = `h and 10 hex digits, as shown`
	recallQueryDescription  = `words to search for`
	recallSchema            = `{"type":"object","properties":{` +
		`"handle":{"type":"string","description":"` + recallHandleDescription + `"},` +
		`"query":{"type":"string","description":"` + recallQueryDescription + `"}},` +
		`"additionalProperties":false}`
	recallToolOpenAI    = `{"type":"function","function":{"name":"swc_recall","description":` + `"` + recallDescription + `"` + `,"parameters":` + recallSchema + `}}`
	recallToolAnthropic = `{"name":"swc_recall","description":` + `"` + recallDescription + `"` + `,"input_schema":` + recallSchema + `}`
)

// handleMark opens a handle where a request shows one: a stub's first
// line, a line of the list of dropped calls ("[swc:h3f9a2c1b0 …").
const handleMark = "[swc:"

// recallKey names an original: a tenant's handle.
type recallKey struct{ tenant, handle string }

// original is an observation's text as the client sent it, and when it
// was seen last.
type original struct {
	text string
	at   time.Time
	key  obsKey // the text's key in the handle memo (recall_keep.go)
}

func (s *Server) recallTTL() time.Duration {
	if s.Proxy.RecallTTL > 0 {
		return s.Proxy.RecallTTL
	}
	return DefaultRecallTTL
}

func (s *Server) recallRounds() int {
	if s.Proxy.RecallRounds > 0 {
		return s.Proxy.RecallRounds
	}
	return DefaultRecallRounds
}

// keepOriginals puts the originals of the observations res stubbed or
// dropped into the tenant's cache, under their handles, and returns the
// handles (none when the request fits, or when send, the request as sent,
// shows no handle: a chat compressed into a memory, say, whose originals
// no swc_recall can name — a handle shown later is shown by a request
// holding its original, which keeps it then). An original the cache holds
// already is only marked used and seen now (Touch): an agent's next
// request resends every original of the one before, so a request costs
// what is new, and the handles of texts seen before are remembered
// (Server.handleOf).
func (s *Server) keepOriginals(tenant string, in *chat.Input, res *memory.Result, send []byte) map[string]bool {
	if res == nil || res.Fits || s.proxy.originals == nil || !bytes.Contains(send, []byte(handleMark)) {
		return nil
	}
	held := map[string]bool{}
	sent := sentMessages(len(in.Messages), res)
	now := s.now()
	for i, m := range in.Messages {
		if _, changed := res.AsSent(i, m); sent[i] && !changed { // sent as it is
			continue
		}
		h, key, ok := s.handleKeyed(in.Messages, i)
		if !ok {
			continue
		}
		k := recallKey{tenant, h}
		seen := s.proxy.originals.Touch(k, func(o *original) bool {
			if o.key != key { // another text under the handle
				return false
			}
			o.at = now
			return true
		})
		if !seen {
			s.proxy.originals.Put(tenant, k, original{m.Content, now, key}, int64(len(m.Content)+len(tenant)+96))
		}
		held[h] = true
	}
	var fresh []memory.Recallable // pieces the cache does not hold yet
	for _, r := range res.Recall {
		// A history handle names its text (a hash of it): one the cache
		// holds is only marked seen now, so a loop's clipped turns cost
		// what is new, not an Original of each on every request.
		if s.proxy.originals.Touch(recallKey{tenant, r.Handle}, func(o *original) bool { o.at = now; return true }) {
			held[r.Handle] = true
			continue
		}
		fresh = append(fresh, r)
	}
	for h, text := range historyOriginals(in.Messages, &memory.Result{Recall: fresh}) {
		s.proxy.originals.Put(tenant, recallKey{tenant, h}, original{text, now, obsKey{}}, int64(len(text)+len(tenant)+96))
		held[h] = true
	}
	return held
}

// historyOriginals returns, by handle, the originals of the pieces of a
// chat history that res's memory message shows by handle (sessions
// gisted, partly kept or left out: memory.Recallable), recomputed from
// msgs, the messages res compressed: memory.Original of the messages
// each stands for.
func historyOriginals(msgs []swc.Message, res *memory.Result) map[string]string {
	if res == nil || len(res.Recall) == 0 {
		return nil
	}
	out := make(map[string]string, len(res.Recall))
	for _, r := range res.Recall {
		pick := make([]swc.Message, 0, len(r.Messages))
		for _, i := range r.Messages {
			if i < 0 || i >= len(msgs) {
				pick = nil
				break
			}
			pick = append(pick, msgs[i])
		}
		if pick == nil {
			continue
		}
		out[r.Handle] = memory.Original(pick)
	}
	return out
}

// sentMessages returns which of the n input messages res sends (as they
// are or stubbed).
func sentMessages(n int, res *memory.Result) []bool {
	sent := make([]bool, n)
	for _, i := range res.Source {
		if i >= 0 && i < n {
			sent[i] = true
		}
	}
	return sent
}

// showsHandle reports whether body, the request as sent, shows one of the
// handles held (a stub's first line, or the list of earlier calls of a
// memory message): there is something swc_recall can name. A request
// whose dropped observations went into a memory without their handles,
// or that fits, goes out without swc_recall.
func showsHandle(body []byte, held map[string]bool) bool {
	if len(held) == 0 {
		return false
	}
	for rest := body; ; {
		i := bytes.Index(rest, []byte(handleMark))
		if i < 0 {
			return false
		}
		rest = rest[i+len(handleMark):]
		if len(rest) >= 11 && held[string(rest[:11])] {
			return true
		}
	}
}

// observationHandle returns the handle of message i when it is an
// observation: memory.ObservationHandle, the handle memory's stubs and
// lists of dropped calls show. It hashes the call id with the output, so
// agents that reuse call ids across turns get a handle per output.
func observationHandle(msgs []swc.Message, i int) (string, bool) {
	return memory.ObservationHandle(msgs, i)
}

// compressionSummary is the value of HeaderCompression for res over in.
// The dropped messages' tokens are what the others leave of
// res.TokensBefore (which counts every input message as c.Cost does), so
// only the messages sent are counted: a long loop's dropped exchanges
// cost nothing here.
func compressionSummary(c *memory.Compressor, in *chat.Input, res *memory.Result) string {
	sent := sentMessages(len(in.Messages), res)
	var kept, keptT, masked, maskedT, stubT, clipped, clippedT, clipT, dropped, instrT int
	for i, m := range in.Messages {
		if chat.IsInstruction(m) {
			instrT += c.Cost(m)
			continue
		}
		switch s, ok := res.AsSent(i, m); {
		case !sent[i]:
			dropped++
		case ok && m.Role == swc.RoleAssistant:
			clipped, clippedT, clipT = clipped+1, clippedT+c.Cost(m), clipT+c.Cost(s)
		case ok:
			masked, maskedT, stubT = masked+1, maskedT+c.Cost(m), stubT+c.Cost(s)
		default:
			kept, keptT = kept+1, keptT+c.Cost(m)
		}
	}
	droppedT := res.TokensBefore - instrT - keptT - maskedT - clippedT
	return "kept=" + strconv.Itoa(kept) + "; kept_tokens=" + strconv.Itoa(keptT) +
		"; masked=" + strconv.Itoa(masked) + "; masked_tokens=" + strconv.Itoa(maskedT) + "; stub_tokens=" + strconv.Itoa(stubT) +
		"; dropped=" + strconv.Itoa(dropped) + "; dropped_tokens=" + strconv.Itoa(droppedT) +
		"; clipped=" + strconv.Itoa(clipped) + "; clipped_tokens=" + strconv.Itoa(clippedT) + "; clip_tokens=" + strconv.Itoa(clipT)
}

// mayRecall reports, without reading the tools, whether the request may
// go out with swc_recall (recallOn): recall is on, the protocol takes it
// (not an interaction) and it declares tools.
func (s *Server) mayRecall(r *http.Request, p protocol, in *chat.Input) bool {
	if s.Proxy.NoRecall || p == protoInteractions || strings.EqualFold(strings.TrimSpace(r.Header.Get(HeaderRecall)), "off") {
		return false
	}
	t := bytes.TrimSpace(in.Body["tools"])
	return len(t) > 0 && !bytes.Equal(t, []byte("[]")) && !bytes.Equal(t, []byte("null"))
}

// recallOn reports whether the request goes out with swc_recall: recall
// is on (ProxyConfig.NoRecall, HeaderRecall), the request declares tools
// (none named swc_recall), its tool_choice is not "none", and it asks for
// one choice (Gemini: geminiRecallOn).
func (s *Server) recallOn(r *http.Request, p protocol, in *chat.Input) bool {
	if s.Proxy.NoRecall || strings.EqualFold(strings.TrimSpace(r.Header.Get(HeaderRecall)), "off") {
		return false
	}
	if p == protoGemini {
		return geminiRecallOn(in.Body)
	}
	if p != protoOpenAI && p != protoAnthropic && p != protoResponses {
		return false
	}
	var tools []json.RawMessage
	if json.Unmarshal(in.Body["tools"], &tools) != nil || len(tools) == 0 {
		return false
	}
	for _, t := range tools {
		var d struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(t, &d) == nil && (d.Name == recallTool || d.Function.Name == recallTool) {
			return false
		}
	}
	var choice struct {
		Type string `json:"type"`
	}
	tc := bytes.TrimSpace(in.Body["tool_choice"])
	if string(tc) == `"none"` || (json.Unmarshal(tc, &choice) == nil && choice.Type == "none") {
		return false
	}
	if n := bytes.TrimSpace(in.Body["n"]); len(n) > 0 && string(n) != "1" && string(n) != "null" {
		return false
	}
	return true
}

// withRecallTool returns body with swc_recall's definition appended to
// its "tools" array (Gemini: to its functionDeclarations).
func withRecallTool(p protocol, body []byte) ([]byte, error) {
	def := recallToolOpenAI
	switch p {
	case protoAnthropic:
		def = recallToolAnthropic
	case protoResponses:
		def = recallToolResponses
	case protoGemini:
		return geminiWithRecallTool(body)
	}
	return appendToArray(body, "tools", def)
}

// RecallTool returns the definition of swc_recall that swc appends to the
// "tools" of a request of format ("openai" for Chat Completions,
// "anthropic", "responses"; "gemini": the function declaration appended
// to the functionDeclarations of the request's first tools entry that has
// them): the same bytes on every request. "" for an unknown format.
func RecallTool(format string) string {
	switch format {
	case "gemini":
		return recallToolGemini
	case "openai":
		return recallToolOpenAI
	case "anthropic":
		return recallToolAnthropic
	case "responses":
		return recallToolResponses
	}
	return ""
}

// appendToArray returns body with the JSON values vals appended to its
// top-level array member key; every other byte is kept.
func appendToArray(body []byte, key string, vals ...string) ([]byte, error) {
	return spliceMember(body, key, func(arr []byte) ([]byte, error) {
		out, ok := appendValues(arr, vals...)
		if !ok {
			return nil, errors.New(key + ": not an array")
		}
		return out, nil
	})
}

// appendValues returns the JSON array arr with vals appended (its
// elements as they were, the space around them trimmed).
func appendValues(arr []byte, vals ...string) ([]byte, bool) {
	arr = bytes.TrimSpace(arr)
	if len(arr) < 2 || arr[0] != '[' || arr[len(arr)-1] != ']' {
		return nil, false
	}
	inner := bytes.TrimSpace(arr[1 : len(arr)-1])
	var b bytes.Buffer
	b.Grow(len(arr) + 256)
	b.WriteByte('[')
	b.Write(inner)
	for i, v := range vals {
		if len(inner) > 0 || i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(v)
	}
	b.WriteByte(']')
	return b.Bytes(), true
}

// spliceMember returns body with the value of its top-level member key
// replaced by f of it; every other byte is kept.
func spliceMember(body []byte, key string, f func([]byte) ([]byte, error)) ([]byte, error) {
	start, end, err := topLevelSpan(body, key)
	if err != nil {
		return nil, err
	}
	v, err := f(body[start:end])
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+len(v)-(end-start))
	return append(append(append(out, body[:start]...), v...), body[end:]...), nil
}

// topLevelSpan returns the offsets [start, end) of the value of body's
// top-level member key.
func topLevelSpan(body []byte, key string) (int, int, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, errors.New("not a JSON object")
	}
	var skip json.RawMessage
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return 0, 0, err
		}
		if kt == key {
			if err := dec.Decode(&skip); err != nil {
				return 0, 0, err
			}
			end := int(dec.InputOffset())
			return end - len(skip), end, nil
		}
		if err := dec.Decode(&skip); err != nil {
			return 0, 0, err
		}
	}
	return 0, 0, errors.New("no " + strconv.Quote(key))
}

// recallArgs are swc_recall's arguments.
type recallArgs struct {
	Handle string `json:"handle"`
	Query  string `json:"query"`
}

// recaller answers swc_recall for one proxied request: from the
// request's own observations, then the tenant's cache of originals, then
// (with a conversation id) the stored conversation.
type recaller struct {
	s            *Server
	in           *chat.Input
	res          *memory.Result // the request's compression (nil when it fit): its memory's handles
	tenant, conv string
	own          map[string]string // handle → original, of the request's observations and memory (made on first use)
	// room is what the budget leaves for the rounds' answers under
	// ProxyConfig.HoldBudget (-1: no bound), count their tokens.
	room  int
	count func(string) int
}

// answer returns the tool result for the arguments args (JSON text),
// within rc.room (fitRoom).
func (rc *recaller) answer(ctx context.Context, args string) string {
	text, kind := rc.resolve(ctx, args)
	rc.s.proxy.metrics.recalls.WithLabelValues(kind).Inc()
	return rc.fitRoom(text)
}

// recallMargin is what each answer leaves of rc.room for the assistant
// turn that asked for it and the message around it.
const recallMargin = 64

// fitRoom returns text within what rc.room leaves (less recallMargin),
// and takes it off the room: under --hold-budget the next round's request
// must fit the budget too, so an original longer than that goes as its
// beginning and a line saying how much was left out.
func (rc *recaller) fitRoom(text string) string {
	if rc.room < 0 {
		return text
	}
	n := rc.count(text)
	left := rc.room - recallMargin
	if n > left {
		orig := text
		for keep := max(left-24, 0); ; keep = keep * 9 / 10 { // 24: the closing line's tokens
			cut := tokens.Truncate(orig, keep)
			text = cut + "\n[swc_recall: " + strconv.Itoa(n-rc.count(cut)) + " tokens of this original left out to keep the request within its budget]"
			if n = rc.count(text); n <= left || keep == 0 {
				break
			}
		}
	}
	rc.room = max(rc.room-n-recallMargin, 0)
	return text
}

// resolve returns the tool result for args and what kind of answer it
// is (original, missing, query, invalid).
func (rc *recaller) resolve(ctx context.Context, args string) (string, string) {
	var a recallArgs
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return `swc_recall: the arguments are not a JSON object ({"handle": "h…"} or {"query": "words"}): ` + err.Error(), "invalid"
	}
	h, q := strings.Trim(strings.TrimSpace(a.Handle), "[]"), strings.TrimSpace(a.Query)
	h = strings.TrimPrefix(h, "swc:")
	switch {
	case h != "":
		if text, ok := rc.byHandle(ctx, h); ok {
			return text, "original"
		}
		return "swc_recall: no original with handle " + strconv.Quote(h) + " (originals are kept for " + rc.s.recallTTL().String() + " after the request that shortened them)", "missing"
	case q != "":
		return rc.byQuery(q), "query"
	}
	return `swc_recall: give "handle" (h and 10 hex digits, from a shortened output) or "query" (words to search for)`, "invalid"
}

func (rc *recaller) ownOriginals() map[string]string {
	if rc.own == nil {
		rc.own = map[string]string{}
		for i := range rc.in.Messages {
			if h, ok := rc.s.handleOf(rc.in.Messages, i); ok {
				rc.own[h] = rc.in.Messages[i].Content
			}
		}
		for h, text := range historyOriginals(rc.in.Messages, rc.res) {
			rc.own[h] = text
		}
	}
	return rc.own
}

// byHandle returns the original of handle h for the recaller's tenant.
func (rc *recaller) byHandle(ctx context.Context, h string) (string, bool) {
	if text, ok := rc.ownOriginals()[h]; ok {
		return text, true
	}
	if o, ok := rc.s.proxy.originals.Get(recallKey{rc.tenant, h}); ok && rc.s.now().Sub(o.at) <= rc.s.recallTTL() {
		return o.text, true
	}
	if rc.conv == "" {
		return "", false
	}
	stored, err := rc.s.store.Messages(ctx, rc.tenant, rc.conv)
	if err != nil {
		rc.s.logger().Warn("proxy: recall from the store", "err", err)
		return "", false
	}
	for i := len(stored) - 1; i >= 0; i-- {
		m := stored[i].Message
		if m.Role == swc.RoleTool && observe.Handle(m.ToolCallID, m.Content) == h {
			return m.Content, true
		}
	}
	return "", false
}

// byQuery returns the passages of the request's messages best for query
// (RecallQuery).
func (rc *recaller) byQuery(query string) string { return RecallQuery(rc.in.Messages, query) }
