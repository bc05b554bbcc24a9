package trajectory

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMarkCache: under Anthropic's rules a request is served from the
// cache only up to a prefix an earlier request's mark wrote. A jump that
// rewrites an earlier output loses the client's mark's prefix; a mark on
// the last unchanged stub keeps it, and a mark that moved on is no
// change to the content.
func TestMarkCache(t *testing.T) {
	msg := func(role, text string, mark bool) string {
		cc := ""
		if mark {
			cc = `,"cache_control":{"type":"ephemeral"}`
		}
		return `{"role":"` + role + `","content":[{"type":"text","text":"` + text + `"` + cc + `}]}`
	}
	req := func(items ...string) *sent {
		var raw []json.RawMessage
		for _, it := range items {
			raw = append(raw, json.RawMessage(it))
		}
		return &sent{top: object{"system": json.RawMessage(`"sys"`), "messages": nil}, items: raw}
	}
	size := func(items ...string) int {
		n := 0
		for _, it := range items {
			n += len(strings.TrimSpace(it))
		}
		return n
	}
	u, a1, a2, a3, a4 := msg("user", "task", false), msg("assistant", "a1", false), msg("assistant", "a2", false), msg("assistant", "a3", false), msg("assistant", "a4", false)
	o := func(n string) string { return msg("user", "output "+n, false) }
	stub := func(n string, mark bool) string { return msg("user", "stub "+n, mark) }

	// Without a mark of its own: the jump at the third request loses all.
	var plain markCache
	if got := plain.serve(req(u, a1, o("1")), "messages"); got != 0 {
		t.Errorf("first request: %d cached", got)
	}
	if got, want := plain.serve(req(u, a1, o("1"), a2, o("2")), "messages"), size(u, a1, o("1")); got != want {
		t.Errorf("an extension: %d cached, want %d", got, want)
	}
	if got := plain.serve(req(u, a1, stub("1", false), a2, o("2"), a3, o("3")), "messages"); got != 0 {
		t.Errorf("after a jump, no mark on the stubs: %d cached, want 0", got)
	}

	// With a mark on the last stub, moved on at the next jump.
	var marked markCache
	marked.serve(req(u, a1, stub("1", true), a2, o("2")), "messages")
	marked.serve(req(u, a1, stub("1", true), a2, o("2"), a3, o("3")), "messages")
	got := marked.serve(req(u, a1, stub("1", false), a2, stub("2", true), a3, o("3"), a4, o("4")), "messages")
	if want := size(u, a1, stub("1", false)); got < want {
		t.Errorf("after a jump, the last stub marked: %d cached, want at least %d (every stub before the jump)", got, want)
	}
}

// TestMarkStrip: a cache_control member goes whether it is an object's
// first, middle or last member, and "cache_control" as a string value (an
// agent grepping for it) is no mark.
func TestMarkStrip(t *testing.T) {
	plain := `{"type":"text","text":"x"}`
	for _, marked := range []string{
		`{"cache_control":{"type":"ephemeral"},"type":"text","text":"x"}`,
		`{"type":"text","cache_control":{"type":"ephemeral","ttl":"1h"},"text":"x"}`,
		`{"type":"text","text":"x", "cache_control" : {"type":"ephemeral"}}`,
	} {
		if !sameItem([]byte(marked), []byte(plain)) {
			t.Errorf("%s and %s differ but for the mark", marked, plain)
		}
	}
	grep := `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"grep","input":{"pattern":"\"cache_control\""}}]}`
	if markRE.MatchString(grep) {
		t.Errorf("a string value taken for a mark: %s", grep)
	}
	if sameItem([]byte(grep), []byte(strings.Replace(grep, "grep", "rg", 1))) {
		t.Error("two different items compared the same")
	}
	// A mark that moved off the system (to a stub) is not a change of the
	// prefix.
	var mc markCache
	msg := json.RawMessage(`{"role":"user","content":"task"}`)
	first := &sent{top: object{"system": json.RawMessage(`[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}]`), "messages": nil}, items: []json.RawMessage{msg, msg}}
	second := &sent{top: object{"system": json.RawMessage(`[{"type":"text","text":"s"}]`), "messages": nil}, items: []json.RawMessage{msg, msg, msg}}
	mc.serve(first, "messages")
	if got := mc.serve(second, "messages"); got == 0 {
		t.Error("a mark that left the system emptied the cache")
	}
}
