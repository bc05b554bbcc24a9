package chat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

// TestSpliceThinkingBinding: a compressed Anthropic request that keeps a
// thinking block asks the API to drop a block whose prefix changed
// (thinking.block_binding.prefix_mismatch_behavior "drop_block"), the
// thinking field's other members as they came; a request without
// thinking, with thinking disabled, with no thinking block kept, with a
// block_binding of the client's, or written with KeepThinkingBinding,
// keeps its field as it came.
func TestSpliceThinkingBinding(t *testing.T) {
	turn := `{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig=="},{"type":"tool_use","id":"t1","name":"sh","input":{}}]}`
	plain := `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"sh","input":{}}]}`
	body := func(thinking, assistant string) string {
		b := `{"model":"claude-sonnet-5-5","max_tokens":9,`
		if thinking != "" {
			b += `"thinking":` + thinking + `,`
		}
		return b + `"messages":[{"role":"user","content":"task"},` + assistant + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a b c"}]}]}`
	}
	for _, tc := range []struct {
		name, thinking, assistant string
		keep                      bool
		want                      string // the thinking field sent; "" = as it came
	}{
		{"adaptive, a thinking block kept", `{"type":"adaptive"}`, turn, false, `{"block_binding":{"prefix_mismatch_behavior":"drop_block"},"type":"adaptive"}`},
		{"enabled with a budget", `{"type":"enabled","budget_tokens":2048}`, turn, false, `{"block_binding":{"prefix_mismatch_behavior":"drop_block"},"budget_tokens":2048,"type":"enabled"}`},
		{"disabled", `{"type":"disabled"}`, turn, false, ""},
		{"no thinking field", "", turn, false, ""},
		{"no thinking block kept", `{"type":"adaptive"}`, plain, false, ""},
		{"the client's own binding", `{"type":"adaptive","block_binding":{"prefix_mismatch_behavior":"error"}}`, turn, false, ""},
		{"KeepThinkingBinding", `{"type":"adaptive"}`, turn, true, ""},
		{"an older model", `{"type":"adaptive"}`, turn, false, ""},
	} {
		b := body(tc.thinking, tc.assistant)
		if tc.name == "an older model" {
			b = strings.Replace(b, "claude-sonnet-5-5", "claude-sonnet-4-5", 1)
		}
		in, err := Parse([]byte(b), Anthropic)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		out := Output{Rewritten: map[int]string{2: "[swc:h0 sh → 3 words]"}, NoCacheMark: true, KeepThinkingBinding: tc.keep}
		for i, m := range in.Messages {
			out.Messages = append(out.Messages, swc.Message{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID})
			out.Source = append(out.Source, i)
		}
		sent, err := Splice(in, out)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(sent, &got); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, sent)
		}
		want := tc.want
		if want == "" {
			want = tc.thinking
		}
		if string(got["thinking"]) != want {
			t.Errorf("%s: thinking sent %s, want %s", tc.name, got["thinking"], want)
		}
		if !strings.Contains(string(sent), "[swc:h0") {
			t.Errorf("%s: the stub is not in the body sent: %s", tc.name, sent)
		}
	}
}

// TestChecksPrefix: the models that run the preserved-thinking prefix
// check, by name as the API and the cloud platforms spell them.
func TestChecksPrefix(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  bool
	}{
		{"claude-fable-5-1", true},
		{"claude-mythos-5-2", true},
		{"claude-opus-5-5", true},
		{"claude-sonnet-5-5-20261015", true},
		{"claude-haiku-5-5", true},
		{"anthropic.claude-opus-5-5-v1:0", true},
		{"claude-sonnet-5-5@20261015", true},
		{"claude-opus-6", true},
		{"claude-opus-5", false},
		{"claude-opus-5-20260601", false},
		{"claude-sonnet-4-5", false},
		{"claude-sonnet-4-20250514", false},
		{"claude-opus-4-8", false},
		{"claude-3-7-sonnet-20250219", false},
		{"gpt-5", false},
		{"", false},
	} {
		if got := checksPrefix(tc.model); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.model, got, tc.want)
		}
	}
}
