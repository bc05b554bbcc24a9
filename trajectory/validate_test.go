package trajectory

import (
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		format chat.Format
		body   string
		want   string // a substring of the first breach; "" for none
	}{
		{"openai ok", chat.OpenAI, `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}},{"id":"b","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"b","content":"x"},{"role":"tool","tool_call_id":"a","content":"y"}]}`, ""},
		{"openai unanswered", chat.OpenAI, `{"messages":[{"role":"user","content":"u"},{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"next"}]}`, "1 tool calls of messages[1] unanswered before a user message"},
		{"openai unanswered at the end", chat.OpenAI, `{"messages":[{"role":"user","content":"u"},{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]}]}`, "unanswered"},
		{"openai orphan result", chat.OpenAI, `{"messages":[{"role":"user","content":"u"},{"role":"tool","tool_call_id":"a","content":"x"}]}`, `tool result "a" answers no call`},
		{"openai result after a user message", chat.OpenAI, `{"messages":[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"u"},{"role":"tool","tool_call_id":"a","content":"x"}]}`, "unanswered before a user message"},
		{"openai answered twice", chat.OpenAI, `{"messages":[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"x"},{"role":"tool","tool_call_id":"a","content":"y"}]}`, "answered twice"},
		{"anthropic ok", chat.Anthropic, `{"system":"s","messages":[{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"tool_use","id":"a","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"},{"type":"text","text":"more"}]}]}`, ""},
		{"anthropic first assistant", chat.Anthropic, `{"messages":[{"role":"assistant","content":"a"},{"role":"user","content":"u"}]}`, "role assistant where user is due"},
		{"anthropic not alternating", chat.Anthropic, `{"messages":[{"role":"user","content":"u"},{"role":"user","content":"v"}]}`, "role user where assistant is due"},
		{"anthropic missing result", chat.Anthropic, `{"messages":[{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]},{"role":"user","content":"no result"}]}`, `tool_use "a" of messages[1] answered 0 times`},
		{"anthropic wrong id", chat.Anthropic, `{"messages":[{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"},{"type":"tool_result","tool_use_id":"b","content":"y"}]}]}`, `tool_result "b" answers no tool_use`},
		{"anthropic result after text", chat.Anthropic, `{"messages":[{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]},{"role":"user","content":[{"type":"text","text":"t"},{"type":"tool_result","tool_use_id":"a","content":"x"}]}]}`, "tool_result after other content"},
		{"anthropic empty text", chat.Anthropic, `{"messages":[{"role":"user","content":""}]}`, "empty text"},
		{"anthropic ends with a call", chat.Anthropic, `{"messages":[{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]}]}`, "without results"},
		{"not an object", chat.OpenAI, `[1]`, "not a JSON object"},
		{"responses ok", chat.Responses, `{"input":[{"role":"user","content":"u"},{"type":"reasoning","id":"r"},{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call","call_id":"b","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"b","output":"x"},{"type":"function_call_output","call_id":"a","output":"y"}]}`, ""},
		{"responses ids reused across turns", chat.Responses, `{"input":[{"role":"user","content":"u"},{"type":"function_call","call_id":"call_0","name":"f","arguments":"{}"},{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":"x"},{"type":"function_call_output","call_id":"call_0","output":"y"},{"type":"function_call","call_id":"call_0","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"call_0","output":"z"}]}`, ""},
		{"responses answered twice", chat.Responses, `{"input":[{"role":"user","content":"u"},{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"x"},{"type":"function_call_output","call_id":"a","output":"y"}]}`, `output "a" answers a call answered already`},
		{"responses id reused while unanswered", chat.Responses, `{"input":[{"role":"user","content":"u"},{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"x"}]}`, `call_id "a" used again while input[1]'s call of it is unanswered`},
		{"openai ids reused across turns", chat.OpenAI, `{"messages":[{"role":"user","content":"u"},{"role":"assistant","tool_calls":[{"id":"call_0","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0","content":"x"},{"role":"assistant","tool_calls":[{"id":"call_0","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0","content":"y"}]}`, ""},
		{"anthropic ids reused across turns", chat.Anthropic, `{"messages":[{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"x"}]},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"y"}]}]}`, ""},
		{"responses unanswered", chat.Responses, `{"input":[{"role":"user","content":"u"},{"type":"function_call","call_id":"a","name":"f","arguments":"{}"}]}`, `call "a" answered 0 times`},
		{"responses orphan", chat.Responses, `{"input":[{"role":"user","content":"u"},{"type":"function_call_output","call_id":"a","output":"x"}]}`, `output "a" answers no call before it`},
		{"gemini ok", chat.Gemini, `{"systemInstruction":{"parts":[{"text":"s"}]},"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"text":"t"},{"functionCall":{"name":"f","args":{}}},{"functionCall":{"name":"f","args":{"a":1}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}},{"functionResponse":{"name":"f","response":{"output":"y"}}}]},{"role":"model","parts":[{"functionCall":{"id":"c1","name":"g","args":{}}}]},{"parts":[{"functionResponse":{"id":"c1","name":"g","response":{}}}]}]}`, ""},
		{"gemini no contents", chat.Gemini, `{"contents":[]}`, "no contents"},
		{"gemini role", chat.Gemini, `{"contents":[{"role":"assistant","parts":[{"text":"a"}]}]}`, `role "assistant" (want user or model)`},
		{"gemini no parts", chat.Gemini, `{"contents":[{"role":"user","parts":[]}]}`, "contents[0]: no parts"},
		{"gemini call in a user content", chat.Gemini, `{"contents":[{"role":"user","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "function calls in a user content"},
		{"gemini call first", chat.Gemini, `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "not right after a user turn"},
		{"gemini call after a model turn", chat.Gemini, `{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"text":"t"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "contents[2]: a function call turn not right after a user turn"},
		{"gemini fewer responses", chat.Gemini, `{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}},{"functionCall":{"name":"g","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "2 function calls answered by 1 function responses in contents[2]"},
		{"gemini unanswered at the end", chat.Gemini, `{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]}]}`, "1 function calls and no content after them"},
		{"gemini wrong name", chat.Gemini, `{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"g","response":{}}}]}]}`, `function response "g" (id "") answers no unanswered call of contents[1]`},
		{"gemini answered twice by id", chat.Gemini, `{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"functionCall":{"id":"a","name":"f","args":{}}},{"functionCall":{"id":"b","name":"g","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"id":"a","name":"f","response":{}}},{"functionResponse":{"id":"a","name":"f","response":{}}}]}]}`, `function response "f" (id "a") answers no unanswered call`},
		{"gemini orphan response", chat.Gemini, `{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"text":"t"}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "contents[2]: 1 function responses and the content before it makes no call"},
		{"gemini response in a model content", chat.Gemini, `{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "function responses in a model content"},
		{"gemini signature kept", chat.Gemini, `{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"s1"}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]},{"role":"model","parts":[{"text":"t","thoughtSignature":"s2"},{"functionCall":{"name":"f","args":{}},"thought_signature":"s3"}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, ""},
		{"gemini signature dropped", chat.Gemini, `{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"s1"}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]},{"role":"model","parts":[{"functionCall":{"name":"g","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"g","response":{}}}]}]}`, `contents[3]: the current turn's function call "g" without its thoughtSignature`},
		{"gemini signature of an earlier turn", chat.Gemini, `{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]},{"role":"model","parts":[{"text":"done"}]},{"role":"user","parts":[{"text":"next task"}]},{"role":"model","parts":[{"functionCall":{"name":"g","args":{}},"thoughtSignature":"s2"}]},{"role":"user","parts":[{"functionResponse":{"name":"g","response":{}}}]}]}`, ""},
		{"gemini unsigned run", chat.Gemini, `{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, ""},
	}
	for _, tt := range tests {
		rp := &Replay{Format: tt.format, codec: codecs[tt.format]}
		got := rp.Breaches([]byte(tt.body))
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("%s: breaches %q, want none", tt.name, got)
		case tt.want != "" && (len(got) == 0 || !strings.Contains(got[0], tt.want)):
			t.Errorf("%s: breaches %q, want one with %q", tt.name, got, tt.want)
		}
	}
}

func TestPrefixStable(t *testing.T) {
	prev := `{"model":"m","system":"s","messages":[{"role":"user","content":"u"},{"role":"assistant","content":"a"}]}`
	tests := []struct {
		cur  string
		want bool
	}{
		{`{"messages":[{"role":"user","content":"u"}, {"role":"assistant","content":"a"},{"role":"user","content":"v"}],"system":"s","model":"m"}`, true},
		{prev, true},
		{`{"model":"m","system":"s + memory","messages":[{"role":"user","content":"u"},{"role":"assistant","content":"a"},{"role":"user","content":"v"}]}`, false},
		{`{"model":"m","system":"s","messages":[{"role":"user","content":"u2"},{"role":"assistant","content":"a"},{"role":"user","content":"v"}]}`, false},
		{`{"model":"m","system":"s","messages":[{"role":"user","content":"u"}]}`, false},
		{`{"model":"m","system":"s","tools":[],"messages":[{"role":"user","content":"u"},{"role":"assistant","content":"a"}]}`, false},
		{`{"model":"m","system":"s","messages":[{"content":"u","role":"user"},{"role":"assistant","content":"a"}]}`, false}, // byte for byte
	}
	for _, tt := range tests {
		if got := PrefixStable([]byte(prev), []byte(tt.cur), "messages"); got != tt.want {
			t.Errorf("PrefixStable(prev, %s) = %v, want %v", tt.cur, got, tt.want)
		}
	}
}

// TestCachedPrefix: the bytes of the later list's leading items the
// earlier sent as they are, none when another field changed.
func TestCachedPrefix(t *testing.T) {
	decode := func(body string) *sent { return sentOf(t, body, "") }
	u, a, v := `{"role":"user","content":"u"}`, `{"role":"assistant","content":"a"}`, `{"role":"user","content":"v"}`
	prev := decode(`{"model":"m","messages":[` + u + `,` + a + `]}`)
	tests := []struct {
		cur           string
		cached, total int
	}{
		{`{"model":"m","messages":[` + u + `, ` + a + `,` + v + `]}`, len(u) + len(a), len(u) + len(a) + len(v)},
		{`{"model":"m","messages":[` + u + `,` + v + `]}`, len(u), len(u) + len(v)},
		{`{"model":"m","messages":[` + v + `,` + a + `]}`, 0, len(v) + len(a)},
		{`{"model":"m2","messages":[` + u + `,` + a + `]}`, 0, len(u) + len(a)},
	}
	for _, tt := range tests {
		if c, n := cachedPrefix(prev, decode(tt.cur), "messages"); c != tt.cached || n != tt.total {
			t.Errorf("cachedPrefix(prev, %s) = %d of %d, want %d of %d", tt.cur, c, n, tt.cached, tt.total)
		}
	}
}

func TestLastHalf(t *testing.T) {
	s := strings.Repeat("line one\n", 10) + strings.Repeat("line two\n", 10)
	got := lastHalf(s)
	if want := "[first half of the output omitted]\n" + strings.Repeat("line two\n", 10); got != want {
		t.Errorf("lastHalf = %q, want %q", got, want)
	}
	if got := lastHalf("ééééé"); !strings.HasSuffix(got, "ééé") || !strings.Contains(got, "omitted]\n") {
		t.Errorf("lastHalf cut a rune: %q", got)
	}
}
