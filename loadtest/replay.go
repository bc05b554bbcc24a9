package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/tokens"
)

// Transcript is an agent's conversation to replay: its messages in order
// (instructions included), and for a LoCoMo conversation its questions.
type Transcript struct {
	Name      string
	Messages  []swc.Message
	Questions []swc.Question
}

// ReplayConfig are the settings of Replay.
type ReplayConfig struct {
	// Protocol is "openai" (Chat Completions, the default) or "anthropic"
	// (Messages: the system prompt in "system", the last message's last
	// block marked with cache_control as clients that cache do).
	Protocol string
	// Budget is the X-SWC-Budget of every request.
	Budget int
	// Conversation, when set, is the X-SWC-Conversation of every request
	// (stored mode); otherwise the proxy is stateless.
	Conversation string
	// Key is the swc key the requests authenticate with.
	Key string
	// Label names the run in the result (the server's compaction, say).
	Label string
	// Tools, when set, are the names of the tools every request declares
	// (ToolDefinitions: a function each, the same bytes on every
	// request), as an agent declares its tools; the replay then counts
	// the tool definitions as the first part of each prompt (a request
	// whose tools differ from the request before shares no prefix with
	// it). Nil: requests declare none.
	Tools []string
	// EveryTurn makes a request before every assistant turn that follows
	// a user message or tool results (an agent calling the model after
	// each tool result), not only after each user message.
	EveryTurn bool
}

// ReplayResult is what Replay measured (swc replay --json prints it with
// these field names).
type ReplayResult struct {
	Transcript, Protocol, Mode, Label string
	Budget, Requests                  int
	// RawTokens is the tokens of the last request as the agent sent it
	// (the whole transcript); SentShare the tokens the provider got over
	// those the agent sent, summed over the requests.
	RawTokens int
	SentShare float64
	// PrefixStable is the share of consecutive requests whose prefix
	// shared with the request before covers at least 90% of the later one
	// (RawPrefixStable: the same of the raw history).
	PrefixStable, RawPrefixStable float64
	// CostRatio[rule] is the input bill of what the provider got over the
	// bill of the raw history, both with prompt caching (PriceRules).
	CostRatio map[string]float64
	// CompactionsPer100 counts the requests whose X-SWC-Compacted moved,
	// per 100 requests.
	CompactionsPer100 float64
	// Recall is the proxy's --recall as the caller ran it ("on", "off";
	// "" when it did not say).
	Recall string
	// RecallOffered counts the requests the proxy sent with swc_recall
	// among their tools.
	RecallOffered int
	// Over counts requests sent above the budget (X-SWC-Tokens-After).
	Over int
	// Latencies through the proxy and direct to the fake upstream; the
	// added p50 and p99 are their differences.
	Proxy, Direct            Latency
	AddedP50MS, AddedP99MS   float64
	Questions                int
	AnswerRecall, SupportAt5 float64 // of the last request's context, LoCoMo questions (category 5 left out)
}

// RequestPoints returns where an agent calls the model in msgs: after each
// user message, as the length of the history sent then.
func RequestPoints(msgs []swc.Message) []int {
	var out []int
	for i, m := range msgs {
		if m.Role == swc.RoleUser {
			out = append(out, i+1)
		}
	}
	return out
}

// TurnPoints returns where an agent calls the model in msgs when it
// does so after each tool result as well: before every assistant message
// that follows a user or tool message, and at the end when the last
// message is one.
func TurnPoints(msgs []swc.Message) []int {
	var out []int
	for i := 1; i <= len(msgs); i++ {
		prev := msgs[i-1].Role
		if (prev == swc.RoleUser || prev == swc.RoleTool) && (i == len(msgs) || msgs[i].Role == swc.RoleAssistant) {
			out = append(out, i)
		}
	}
	return out
}

// ToolNames returns the names of the tools msgs call, in order of first
// call.
func ToolNames(msgs []swc.Message) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if !seen[tc.Name] {
				seen[tc.Name] = true
				out = append(out, tc.Name)
			}
		}
	}
	return out
}

// ToolDefinitions returns the JSON of a "tools" array declaring names in
// format's form (chat.OpenAI or chat.Anthropic): a function each taking
// an object.
func ToolDefinitions(format chat.Format, names []string) []byte {
	defs := make([]any, len(names))
	for i, n := range names {
		schema := map[string]any{"type": "object"}
		if format == chat.Anthropic {
			defs[i] = map[string]any{"name": n, "description": "the agent's " + n + " tool", "input_schema": schema}
		} else {
			defs[i] = map[string]any{"type": "function", "function": map[string]any{"name": n, "description": "the agent's " + n + " tool", "parameters": schema}}
		}
	}
	b, _ := json.Marshal(defs)
	return b
}

// withTools returns body with its top-level "tools" set to tools.
func withTools(body, tools []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, err
	}
	top["tools"] = tools
	return json.Marshal(top)
}

// AnthropicBody returns a Messages request body of msgs: the instructions
// as the system string, the last message's last content block marked with
// cache_control (as a client that caches its history marks it).
func AnthropicBody(msgs []swc.Message) ([]byte, error) {
	a := chat.ToAnthropic(msgs)
	raw := make([]json.RawMessage, len(a.Messages))
	for i, m := range a.Messages {
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		raw[i] = b
	}
	if n := len(raw); n > 0 {
		var m struct {
			Role    string                       `json:"role"`
			Content []map[string]json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw[n-1], &m); err != nil {
			return nil, err
		}
		m.Content[len(m.Content)-1]["cache_control"] = json.RawMessage(`{"type":"ephemeral"}`)
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		raw[n-1] = b
	}
	body := map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": raw}
	if a.System != "" {
		body["system"] = a.System
	}
	return json.Marshal(body)
}

// Replay sends tr through the proxy of t as an agent would — a request at
// each user message, each the previous one plus the new messages — and
// each request also straight to up, the proxy's upstream, as the baseline
// of latency and cost. It returns the first failed request's error.
func Replay(ctx context.Context, t Target, up *FakeUpstream, tr Transcript, cfg ReplayConfig) (ReplayResult, error) {
	res := ReplayResult{Transcript: tr.Name, Protocol: cfg.Protocol, Budget: cfg.Budget, Label: cfg.Label, Mode: "stateless", CostRatio: map[string]float64{}}
	if res.Protocol == "" {
		res.Protocol = "openai"
	}
	if cfg.Conversation != "" {
		res.Mode = "stored"
	}
	path, format := "/v1/chat/completions", chat.OpenAI
	if res.Protocol == "anthropic" {
		path, format = "/v1/messages", chat.Anthropic
	}
	var mu sync.Mutex
	got := map[string][]byte{}
	up.Record(func(r *http.Request, body []byte) {
		if seq := r.Header.Get("X-Replay-Seq"); seq != "" {
			mu.Lock()
			got[seq] = body
			mu.Unlock()
		}
	})
	defer up.Record(nil)
	hc := &http.Client{Timeout: time.Minute}
	post := func(url string, body []byte, h map[string]string) (time.Duration, http.Header, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		start := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			return 0, nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("replay: %s answered %s: %.300s", url, resp.Status, b)
		}
		return d, resp.Header, err
	}

	count := tokens.CountCached
	prompt := func(body []byte) (Prompt, []swc.Message, error) {
		in, err := chat.Parse(body, format)
		if err != nil {
			return Prompt{}, nil, err
		}
		msgs := in.Messages
		if t := bytes.TrimSpace(in.Body["tools"]); len(cfg.Tools) > 0 && len(t) > 0 {
			// the tools first, as providers cache them: a change is a
			// new head, sharing nothing with the request before
			tools := swc.Message{Role: "tools", Name: string(t), Content: string(t)}
			msgs = append([]swc.Message{tools}, msgs...)
		}
		return NewPrompt(msgs, count, memory.MessageOverhead), in.Messages, nil
	}
	var tools []byte
	if len(cfg.Tools) > 0 {
		tools = ToolDefinitions(format, cfg.Tools)
	}
	points := RequestPoints(tr.Messages)
	if cfg.EveryTurn {
		points = TurnPoints(tr.Messages)
	}
	var sent, raw []Prompt
	var last []swc.Message
	var proxied, direct []time.Duration
	compactions, prevCompacted := 0, "0"
	for k, end := range points {
		var body []byte
		var err error
		if format == chat.Anthropic {
			body, err = AnthropicBody(tr.Messages[:end])
		} else {
			body, err = RequestBody(tr.Messages[:end], false)
		}
		if err == nil && tools != nil {
			body, err = withTools(body, tools)
		}
		if err != nil {
			return res, err
		}
		d, _, err := post(up.URL+path, body, nil)
		if err != nil {
			return res, err
		}
		direct = append(direct, d)
		seq := strconv.Itoa(k)
		h := map[string]string{"Authorization": "Bearer " + cfg.Key, swchttp.HeaderBudget: strconv.Itoa(cfg.Budget), "X-Replay-Seq": seq}
		if cfg.Conversation != "" {
			h[swchttp.HeaderConversation] = cfg.Conversation
		}
		d, hdr, err := post(t.URL+path, body, h)
		if err != nil {
			return res, err
		}
		proxied = append(proxied, d)
		if after, _ := strconv.Atoi(hdr.Get(swchttp.HeaderTokensAfter)); after > cfg.Budget {
			res.Over++
		}
		if c := hdr.Get(swchttp.HeaderCompacted); c != "" && c != prevCompacted {
			compactions++
			prevCompacted = c
		}
		mu.Lock()
		out, ok := got[seq]
		delete(got, seq)
		mu.Unlock()
		if !ok {
			return res, fmt.Errorf("replay: request %d reached no upstream", k)
		}
		sp, msgs, err := prompt(out)
		if err != nil {
			return res, fmt.Errorf("replay: request %d as sent upstream: %w", k, err)
		}
		if bytes.Contains(out, []byte(`"name":"swc_recall"`)) {
			res.RecallOffered++
		}
		rp, _, err := prompt(body)
		if err != nil {
			return res, err
		}
		sent, raw, last = append(sent, sp), append(raw, rp), msgs
	}
	res.Requests = len(sent)
	if res.Requests == 0 {
		return res, fmt.Errorf("replay: %s has no user message", tr.Name)
	}
	res.RawTokens = raw[len(raw)-1].Tokens
	shared, rawShared := sharedPrefixes(sent, count), sharedPrefixes(raw, count)
	res.PrefixStable, res.RawPrefixStable = stableShare(sent, shared), stableShare(raw, rawShared)
	sum := func(ps []Prompt) (n int) {
		for _, p := range ps {
			n += p.Tokens
		}
		return n
	}
	res.SentShare = float64(sum(sent)) / float64(sum(raw))
	for _, r := range PriceRules() {
		res.CostRatio[r.Name] = Cost(sent, shared, r) / Cost(raw, rawShared, r)
	}
	res.CompactionsPer100 = 100 * float64(compactions) / float64(res.Requests)
	res.Proxy, res.Direct = Summarize(proxied), Summarize(direct)
	res.AddedP50MS, res.AddedP99MS = res.Proxy.P50MS-res.Direct.P50MS, res.Proxy.P99MS-res.Direct.P99MS
	res.Questions, res.AnswerRecall, res.SupportAt5 = Recall(ContextText(last), tr.Questions)
	return res, nil
}

func sharedPrefixes(ps []Prompt, count func(string) int) []int {
	out := make([]int, len(ps))
	for k := 1; k < len(ps); k++ {
		out[k] = Shared(ps[k-1], ps[k], count)
	}
	return out
}

// stableShare is the share of consecutive pairs whose shared prefix
// covers at least 90% of the later prompt.
func stableShare(ps []Prompt, shared []int) float64 {
	if len(ps) < 2 {
		return 1
	}
	n := 0
	for k := 1; k < len(ps); k++ {
		if float64(shared[k]) >= 0.9*float64(ps[k].Tokens) {
			n++
		}
	}
	return float64(n) / float64(len(ps)-1)
}

// ContextText renders messages as a model reads a context: instruction and
// memory messages as they are, the others a line each ("Speaker: text",
// tool calls as "[calls name(args)]").
func ContextText(msgs []swc.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if chat.IsInstruction(m) {
			b.WriteString(m.Content)
			b.WriteString("\n\n")
			continue
		}
		speaker := m.Name
		if speaker == "" {
			speaker = string(m.Role)
		}
		b.WriteString(speaker)
		b.WriteString(": ")
		b.WriteString(m.Content)
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, " [calls %s(%s)]", tc.Name, tc.Arguments)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Recall returns how many of qs were scored (category 5, adversarial, left
// out) and their mean answer-token recall and support_recall@5 in context,
// as the benchmark computes them.
func Recall(context string, qs []swc.Question) (n int, recall, support float64) {
	idx, sup := bench.NewIndex(context), bench.NewSupport(context)
	for _, q := range qs {
		if q.Category == swc.Adversarial {
			continue
		}
		gold := bench.GoldFor(q)
		recall += idx.TokenRecall(gold)
		support += sup.Recall(q.Question, gold, bench.SupportK)
		n++
	}
	if n > 0 {
		recall /= float64(n)
		support /= float64(n)
	}
	return n, recall, support
}
