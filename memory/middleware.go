package memory

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// Middleware has the signature of option.Middleware in both official SDKs
// (github.com/openai/openai-go/v3/option and
// github.com/anthropics/anthropic-sdk-go/option declare it as a type alias),
// so its values go straight into either SDK's option.WithMiddleware without
// this package importing them.
type Middleware = func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error)

// OpenAIMiddleware returns a Middleware that compresses the messages of
// every Chat Completions request (POST …/chat/completions) with c before it
// is sent: the request's other fields and the kept messages go out byte for
// byte, the history becomes one system message (a tool loop's old tool
// results are stubbed in place instead: Result.Rewritten). A request that
// already fits the budget, that is not a Chat Completions request, or that
// cannot be compressed (malformed) is sent unchanged; one whose protected
// messages alone exceed the budget goes out over it (Result.OverBudget).
// report, when not nil, is called for every
// compressible request with its result, or with the error that left it
// unchanged.
func OpenAIMiddleware(c *Compressor, report func(*Result, error)) Middleware {
	return middleware(c, report, "/chat/completions", chat.OpenAI, spliceOpenAI)
}

// spliceAnthropic is spliceAnthropic with c's cache breakpoint setting.
func (c *Compressor) spliceAnthropic(in *chat.Input, res *Result) ([]byte, error) {
	return spliceAnthropic(in, res, c.opts.CacheBreakpoints != BreakpointsOff)
}

// AnthropicMiddleware is OpenAIMiddleware for the Messages API (POST
// …/v1/messages): the memory is appended to "system" (as a text block when
// system is a list of blocks, so cache_control on the original blocks stays
// valid), and the kept messages start at a user message. With
// Options.CacheBreakpoints auto (the default) the memory block carries a
// cache_control mark when the client's marks leave room for one.
func AnthropicMiddleware(c *Compressor, report func(*Result, error)) Middleware {
	cc := *c
	cc.opts.AlignUser = true
	return middleware(&cc, report, "/messages", chat.Anthropic, cc.spliceAnthropic)
}

func middleware(c *Compressor, report func(*Result, error), suffix string, f chat.Format, splice func(*chat.Input, *Result) ([]byte, error)) Middleware {
	if report == nil {
		report = func(*Result, error) {}
	}
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, suffix) || req.Body == nil {
			return next(req)
		}
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		setBody(req, body)
		out, err := compressBody(req, c, f, body, splice)
		if err != nil {
			report(nil, err)
			return next(req)
		}
		report(out.res, nil)
		if out.body != nil {
			setBody(req, out.body)
		}
		return next(req)
	}
}

type compressed struct {
	res  *Result
	body []byte // nil: send the original
}

func compressBody(req *http.Request, c *Compressor, f chat.Format, body []byte, splice func(*chat.Input, *Result) ([]byte, error)) (compressed, error) {
	in, err := chat.ParseOwned(body, f) // read for this request, never written
	if err != nil {
		return compressed{}, err
	}
	res, err := c.Compress(req.Context(), in.Messages)
	if err != nil {
		return compressed{}, err
	}
	if res.Fits {
		return compressed{res: res}, nil
	}
	nb, err := splice(in, res)
	return compressed{res: res, body: nb}, err
}

func setBody(req *http.Request, b []byte) {
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.ContentLength = int64(len(b))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}

// spliceOpenAI writes the request body with res's messages: kept messages
// as they came (a rewritten one with its "content" replaced, every other
// byte as it came), the memory as a system message.
func spliceOpenAI(in *chat.Input, res *Result) ([]byte, error) {
	msgs := make([]json.RawMessage, 0, len(res.Messages))
	for k, src := range res.Source {
		if src < 0 {
			b, err := json.Marshal(chat.OpenAIMessages(res.Messages[k : k+1])[0])
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, b)
			continue
		}
		raw, err := rewriteRaw(in, res, in.Origin[src])
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, raw)
	}
	return withMessages(in, msgs, nil)
}

// spliceAnthropic writes the request body with the memory appended to
// system and the kept messages as they came (a rewritten tool result with
// its block's "content" replaced, every other byte as it came; a source
// message whose tool results went into the memory is kept without its
// tool_result blocks, every other byte as it came; one otherwise partly
// kept is written anew). With mark,
// the memory block gets a cache_control mark when the body's marks leave
// room (MaxBreakpoints).
func spliceAnthropic(in *chat.Input, res *Result, mark bool) ([]byte, error) {
	var msgs []json.RawMessage
	kept := map[int]int{} // origin → kept parts
	for _, src := range res.Source {
		if src >= 0 && in.Origin[src] >= 0 {
			kept[in.Origin[src]]++
		}
	}
	total := map[int]int{}
	for _, o := range in.Origin {
		total[o]++
	}
	done := map[int]bool{}
	for _, src := range res.Source {
		if src < 0 || in.Origin[src] < 0 || done[in.Origin[src]] {
			continue
		}
		o := in.Origin[src]
		done[o] = true
		if kept[o] == total[o] {
			raw, err := rewriteRaw(in, res, o)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, raw)
			continue
		}
		var part []int
		for _, s := range res.Source {
			if s >= 0 && in.Origin[s] == o {
				part = append(part, s)
			}
		}
		if b, ok := keptWithoutResults(in, o, part); ok {
			msgs = append(msgs, b)
			continue
		}
		sub := make([]int, len(part))
		copy(sub, part)
		ms := chat.ToAnthropic(pick(in, res, sub)).Messages
		for _, m := range ms {
			b, err := json.Marshal(m)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, b)
		}
	}
	hour := false
	if mark && res.Memory != "" {
		var n int
		n, hour = breakpoints(in.Body, msgs)
		mark = n < MaxBreakpoints
	}
	sys, err := appendSystem(in.Body["system"], res.Memory, mark, hour)
	if err != nil {
		return nil, err
	}
	return withMessages(in, msgs, sys)
}

// pick returns the input messages idx, with res's rewritten contents.
func pick(in *chat.Input, res *Result, idx []int) []swc.Message {
	out := make([]swc.Message, len(idx))
	for i, k := range idx {
		out[i] = in.Messages[k]
		if text, ok := res.Rewritten[k]; ok {
			out[i].Content = text
		}
	}
	return out
}

// appendSystem returns the system field with memory appended: to the
// string, or as a text block. With mark the memory is a text block with a
// cache_control mark (a string system becomes a text block before it),
// with the 1-hour TTL when hour.
func appendSystem(sys json.RawMessage, memory string, mark, hour bool) (json.RawMessage, error) {
	if memory == "" {
		return sys, nil
	}
	sys = bytes.TrimSpace(sys)
	block := memoryBlock{Type: "text", Text: memory}
	if mark {
		block.CacheControl = &cacheControl{Type: "ephemeral"}
		if hour {
			block.CacheControl.TTL = "1h"
		}
	}
	var blocks []json.RawMessage
	var s string
	switch {
	case len(sys) == 0 || string(sys) == "null":
		if !mark {
			return json.Marshal(memory)
		}
	case json.Unmarshal(sys, &s) == nil:
		if !mark {
			if s != "" {
				s += "\n\n"
			}
			return json.Marshal(s + memory)
		}
		if s != "" {
			b, err := json.Marshal(memoryBlock{Type: "text", Text: s})
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, b)
		}
	default:
		if err := json.Unmarshal(sys, &blocks); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(block)
	if err != nil {
		return nil, err
	}
	return json.Marshal(append(blocks, b))
}

// withMessages returns the request body with its messages (and system,
// when not nil) replaced, every other field as it came. It writes the raw
// values as they are rather than through json.Marshal, which would compact
// and re-validate the whole history again.
func withMessages(in *chat.Input, msgs []json.RawMessage, system json.RawMessage) ([]byte, error) {
	keys := make([]string, 0, len(in.Body)+1)
	for k := range in.Body {
		if k != "messages" && (k != "system" || system == nil) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	size := 64
	for _, v := range in.Body {
		size += len(v)
	}
	out := make([]byte, 0, size+len(system))
	out = append(out, '{')
	field := func(k string, v []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(k) // JSON quoting, not Go's
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, v...)
	}
	for _, k := range keys {
		field(k, in.Body[k])
	}
	if system != nil {
		field("system", system)
	}
	field("messages", nil)
	out = append(out, '[')
	for i, m := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m...)
	}
	out = append(out, ']', '}')
	return out, nil
}
