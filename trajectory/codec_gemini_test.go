package trajectory

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

func TestGeminiTurn(t *testing.T) {
	tests := []struct {
		name  string
		items []string
		want  string
	}{
		{"text and call", []string{`{"role":"model","parts":[{"text":"Look at a.go."},{"functionCall":{"name":"bash","args":{"command":"cat a.go","n":3}}}]}`}, "Look at a.go.\ncat a.go\n"},
		{"thought left out", []string{`{"role":"model","parts":[{"text":"secret b.go","thought":true},{"text":"Now c.go."}]}`}, "Now c.go.\n"},
		{"snake case", []string{`{"role":"model","parts":[{"function_call":{"name":"f","args":{"p":"d.go"}},"thought_signature":"s"}]}`}, "d.go\n"},
		{"a run of model contents, up to the next user's", []string{`{"role":"model","parts":[{"text":"one"}]}`, `{"role":"model","parts":[{"text":"two"}]}`, `{"role":"user","parts":[{"text":"three"}]}`}, "one\ntwo\n"},
		{"no parts", []string{`{"role":"model"}`}, ""},
	}
	for _, tt := range tests {
		items := make([]json.RawMessage, len(tt.items))
		for i, s := range tt.items {
			items[i] = json.RawMessage(s)
		}
		if got := geminiTurn(items); got != tt.want {
			t.Errorf("%s: turn %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestGeminiRewrite(t *testing.T) {
	tests := []struct {
		name  string
		item  string
		calls []string
		texts map[string]string
		want  string
	}{
		{"the second response, the rest kept", `{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}},{"functionResponse":{"id":"c2","name":"f","response":{"output":"y"},"parts":[{"inlineData":{}}]},"thoughtSignature":"s"}]}`,
			[]string{"gemini:1:0", "c2"}, map[string]string{"c2": "[output omitted]"},
			`{"parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}},{"functionResponse":{"id":"c2","name":"f","response":{"output":"[output omitted]"}},"thoughtSignature":"s"}],"role":"user"}`},
		{"by the position chat read, not the part's name", `{"role":"user","parts":[{"functionResponse":{"name":"g","response":{"error":"e"}}},{"functionResponse":{"name":"f","response":{"output":"y"}}}]}`,
			[]string{"gemini:1:1", "gemini:1:0"}, map[string]string{"gemini:1:1": "new"},
			`{"parts":[{"functionResponse":{"name":"g","response":{"output":"new"}}},{"functionResponse":{"name":"f","response":{"output":"y"}}}],"role":"user"}`},
		{"a user's text", `{"role":"user","parts":[{"text":"a"},{"inlineData":{"mimeType":"image/png","data":""}},{"text":"b"}]}`,
			nil, map[string]string{"": "ab"},
			`{"parts":[{"text":"ab"}],"role":"user"}`},
		{"a user's text after responses", `{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}},{"text":"out"}]}`,
			[]string{"gemini:1:0"}, map[string]string{"": "o", "gemini:1:0": "r"},
			`{"parts":[{"functionResponse":{"name":"f","response":{"output":"r"}}},{"text":"o"}],"role":"user"}`},
	}
	for _, tt := range tests {
		got, err := geminiRewrite(json.RawMessage(tt.item), tt.calls, tt.texts)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	if _, err := geminiRewrite(json.RawMessage(`{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}`), nil, map[string]string{"x": "y"}); err == nil {
		t.Error("a response chat did not read: no error")
	}
}

// TestGeminiPlanIDs: a baseline's rewrite reaches the function response
// chat paired with the call, for calls without ids (chat's
// "gemini:<content>:<part>", paired by name in order) and with ids
// (paired by id whatever the order), and the body it sends reads back
// as chat read the original, the one response rewritten.
func TestGeminiPlanIDs(t *testing.T) {
	body := `{"contents":[{"role":"user","parts":[{"text":"task"}]},
{"role":"model","parts":[{"functionCall":{"name":"f","args":{"p":"a"}}},{"functionCall":{"name":"g","args":{"p":"b"}}},{"functionCall":{"name":"f","args":{"p":"c"}}},{"functionCall":{"id":"k","name":"f","args":{"p":"d"}}}]},
{"role":"user","parts":[{"functionResponse":{"id":"k","name":"f","response":{"output":"out-d"}}},{"functionResponse":{"name":"g","response":{"output":"out-b"}}},{"functionResponse":{"name":"f","response":{"output":"out-a"}}},{"functionResponse":{"name":"f","response":{"output":"out-c"}}}]},
{"role":"model","parts":[{"text":"done"}]}]}`
	rp, err := NewReplay("ids", Body{Format: chat.Gemini, Data: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	if rp.Len() != 2 {
		t.Fatalf("%d requests, want 2", rp.Len())
	}
	q, err := rp.Request(1)
	if err != nil {
		t.Fatal(err)
	}
	for id, out := range map[string]string{"gemini:1:0": "out-a", "gemini:1:1": "out-b", "gemini:1:2": "out-c", "k": "out-d"} {
		p := newPlan(q)
		hit := -1
		for i, m := range q.Input.Messages {
			if m.Role == swc.RoleTool && m.ToolCallID == id {
				hit = i
			}
		}
		if hit < 0 || q.Input.Messages[hit].Content != out {
			t.Fatalf("chat read no result %q for call %s: %+v", out, id, q.Input.Messages)
		}
		p.rewrite(hit, "[gone]")
		sent, err := p.body()
		if err != nil {
			t.Fatal(err)
		}
		if bs := rp.Breaches(sent); len(bs) > 0 {
			t.Errorf("call %s: breaches %q", id, bs)
		}
		in, err := chat.Parse(sent, chat.Gemini)
		if err != nil {
			t.Fatalf("call %s: %v", id, err)
		}
		for i, m := range in.Messages {
			want := q.Input.Messages[i].Content
			if i == hit {
				want = "[gone]"
			}
			if m.Content != want || m.ToolCallID != q.Input.Messages[i].ToolCallID {
				t.Errorf("call %s: message %d reads %q (call %q), want %q (call %q)", id, i, m.Content, m.ToolCallID, want, q.Input.Messages[i].ToolCallID)
			}
		}
		if strings.Count(string(sent), "[gone]") != 1 {
			t.Errorf("call %s: %s", id, sent)
		}
	}
}
