package memory

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// marks counts the cache_control marks anywhere in a JSON value, and
// returns the TTLs of those in "system".
func marks(t *testing.T, body []byte) (n int, memoryMarked bool) {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "cache_control" && e != nil {
					n++
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	if sys, ok := v["system"].([]any); ok && len(sys) > 0 {
		last, _ := sys[len(sys)-1].(map[string]any)
		text, _ := last["text"].(string)
		memoryMarked = strings.HasPrefix(text, Preamble) && last["cache_control"] != nil
	}
	return n, memoryMarked
}

// systemMarked reports whether the block before the memory (the client's
// last system block) carries a mark.
func systemMarked(t *testing.T, body []byte) bool {
	t.Helper()
	var v struct {
		System []map[string]json.RawMessage `json:"system"`
	}
	if err := json.Unmarshal(body, &v); err != nil || len(v.System) < 2 {
		return false
	}
	cc := v.System[len(v.System)-2]["cache_control"]
	return len(cc) > 0 && string(cc) != "null"
}

// TestCacheBreakpoints: Anthropic requests with 0–4 marks of their own
// (on tools, system, kept messages, top level, and on a message that goes
// into the memory) go out with every kept mark and never more than 4; the
// memory block is marked exactly when there is room, with the 1-hour TTL
// when a later mark has it, and never with breakpoints off; the client's
// system block then takes one when it has none and one is left.
func TestCacheBreakpoints(t *testing.T) {
	msgs, _ := chat.Sample()
	req := chat.ToAnthropic(msgs)
	const mark = `{"type":"ephemeral"}`
	type place struct {
		top, tools, system, last, old, hour bool
		before                              int // marks on the last messages, besides the last one
	}
	cases := []place{
		{},
		{last: true},
		{system: true, last: true},
		{tools: true, system: true, last: true},
		{tools: true, system: true, last: true, before: 1},
		{top: true, tools: true, system: true, last: true},
		{tools: true, system: true, last: true, old: true}, // the old one is compacted away: room for the memory's
		{last: true, hour: true},
		{before: 4},
	}
	for _, pc := range cases {
		for _, off := range []bool{false, true} {
			name := fmt.Sprintf("%+v/off=%v", pc, off)
			raw := make([]map[string]any, len(req.Messages))
			b, _ := json.Marshal(req.Messages)
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			markMsg := func(i int, cc string) {
				blocks := raw[i]["content"].([]any)
				blocks[len(blocks)-1].(map[string]any)["cache_control"] = json.RawMessage(cc)
			}
			var marked []int
			if pc.last {
				cc := mark
				if pc.hour {
					cc = `{"type":"ephemeral","ttl":"1h"}`
				}
				markMsg(len(raw)-1, cc)
				marked = append(marked, len(raw)-1)
			}
			for k := 1; k <= pc.before; k++ {
				markMsg(len(raw)-1-k, mark)
				marked = append(marked, len(raw)-1-k)
			}
			if pc.old {
				markMsg(0, mark)
				marked = append(marked, 0)
			}
			want := 0
			body := map[string]any{"model": "claude-haiku-4-5", "max_tokens": 100, "messages": raw}
			if pc.top {
				body["cache_control"] = json.RawMessage(mark)
				want++
			}
			if pc.tools {
				body["tools"] = json.RawMessage(`[{"name":"search","input_schema":{"type":"object"},"cache_control":` + mark + `}]`)
				want++
			}
			body["system"] = req.System
			if pc.system {
				body["system"] = json.RawMessage(`[{"type":"text","text":` + quote(req.System) + `,"cache_control":` + mark + `}]`)
				want++
			}
			in, _ := json.Marshal(body)
			o := DefaultOptions()
			o.Budget = 1500
			if off {
				o.CacheBreakpoints = BreakpointsOff
			}
			res, cp := sendAnthropic(t, o, in)
			if res.Fits || res.Recent < 10 {
				t.Fatalf("%s: not compressed (recent %d)", name, res.Recent)
			}
			// The client's marks that go out: those of kept messages.
			var sent struct{ Messages []json.RawMessage }
			if err := json.Unmarshal(cp.body, &sent); err != nil {
				t.Fatal(err)
			}
			out := map[string]bool{}
			for _, m := range sent.Messages {
				out[string(m)] = true
			}
			for _, i := range marked {
				b, _ := json.Marshal(raw[i])
				if out[string(b)] {
					want++
				}
			}
			if pc.old && want == len(marked) {
				t.Fatalf("%s: the oldest message was kept", name)
			}
			got, memMarked := marks(t, cp.body)
			room := !off && want < MaxBreakpoints
			if memMarked != room {
				t.Errorf("%s: memory marked %v, want %v (client marks kept %d)", name, memMarked, room, want)
			}
			if room {
				want++
			}
			// The client's system block takes one more when the client
			// marked none of it and one is left.
			sysRoom := !off && !pc.system && want < MaxBreakpoints
			if sysMarked := systemMarked(t, cp.body); sysMarked != (sysRoom || pc.system) {
				t.Errorf("%s: system block marked %v, want %v", name, sysMarked, sysRoom || pc.system)
			}
			if sysRoom {
				want++
			}
			if got != want || got > MaxBreakpoints {
				t.Errorf("%s: %d marks sent, want %d", name, got, want)
			}
			if pc.hour && room && !strings.Contains(string(cp.body), `"text":`+quote(res.Memory)+`,"cache_control":{"type":"ephemeral","ttl":"1h"}`) {
				t.Errorf("%s: the memory's mark does not take the later 1h TTL", name)
			}
			if _, err := chat.Parse(cp.body, chat.Anthropic); err != nil {
				t.Errorf("%s: sent body does not parse: %v", name, err)
			}
		}
	}
}

// sendAnthropic sends body through AnthropicMiddleware with a Compressor
// of o and returns the Result and what the middleware sent on.
func sendAnthropic(t *testing.T, o Options, body []byte) (*Result, *capture) {
	t.Helper()
	var res *Result
	mw := AnthropicMiddleware(mustNew(t, o), func(r *Result, err error) {
		if err != nil {
			t.Fatal(err)
		}
		res = r
	})
	cp := &capture{}
	if _, err := mw(post(t, "https://api.anthropic.com/v1/messages", body), cp.next); err != nil {
		t.Fatal(err)
	}
	return res, cp
}
