package agents

import (
	"cmp"
	"encoding/json"
	"github.com/swcmem/swc/internal/wiretest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc/observe"
)

// rules returns the rule names of bs, sorted.
func rules(bs breaches) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Rule)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func sentOf(m map[string]call) func(string) (call, bool) {
	return func(id string) (call, bool) { c, ok := m[id]; return c, ok }
}

func TestCheckAnthropic(t *testing.T) {
	th := "Step 1 of 40: print the next step file with Bash."
	sent := sentOf(map[string]call{"call_01": {step: 1, thinking: []thinking{{th, sign(th)}}}})
	thinkingBlock := `{"type":"thinking","thinking":"` + th + `","signature":"` + sign(th) + `"}`
	use := `{"type":"tool_use","id":"call_01","name":"Bash","input":{"command":"cat x"}}`
	result := `{"type":"tool_result","tool_use_id":"call_01","content":"out"}`
	cc := `,"cache_control":{"type":"ephemeral"}`
	for _, c := range []struct {
		name, beta, msgs string
		want             []string
	}{
		{"valid", "", `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkingBlock + `,` + use + `]},{"role":"user","content":[` + result + `]}]`, nil},
		{"mid-conversation system with its beta", "a,mid-conversation-system-2026-04-07", `[{"role":"user","content":"go"},{"role":"system","content":"note"}]`, nil},
		{"system without the beta", "", `[{"role":"user","content":"go"},{"role":"system","content":"note"}]`, []string{"role"}},
		{"first message assistant", "", `[{"role":"assistant","content":"hi"},{"role":"user","content":"go"}]`, []string{"first-message"}},
		{"two assistants", "", `[{"role":"user","content":"go"},{"role":"assistant","content":"a"},{"role":"assistant","content":"b"}]`, []string{"alternation"}},
		{"thinking dropped", "", `[{"role":"user","content":"go"},{"role":"assistant","content":[` + use + `]},{"role":"user","content":[` + result + `]}]`, []string{"thinking-dropped"}},
		{"thinking edited", "", `[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","thinking":"Step 1","signature":"` + sign(th) + `"},` + use + `]},{"role":"user","content":[` + result + `]}]`, []string{"thinking-changed", "thinking-signature"}},
		{"result missing", "", `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkingBlock + `,` + use + `]},{"role":"user","content":"next"}]`, []string{"tool-result-missing"}},
		{"call last", "", `[{"role":"user","content":"go"},{"role":"assistant","content":[` + use + `]}]`, []string{"tool-result-missing"}},
		{"result after text", "", `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkingBlock + `,` + use + `]},{"role":"user","content":[{"type":"text","text":"see"},` + result + `]}]`, []string{"tool-result-not-first"}},
		{"result twice", "", `[{"role":"user","content":"go"},{"role":"assistant","content":[` + thinkingBlock + `,` + use + `]},{"role":"user","content":[` + result + `,` + result + `]}]`, []string{"tool-result-duplicate"}},
		{"orphan result", "", `[{"role":"user","content":"go"},{"role":"assistant","content":"no call"},{"role":"user","content":[` + result + `]}]`, []string{"tool-result-orphan"}},
		{"empty content", "", `[{"role":"user","content":[]},{"role":"assistant","content":"a"},{"role":"user","content":""}]`, []string{"empty-content", "empty-text"}},
		{"five breakpoints", "", `[{"role":"user","content":[{"type":"text","text":"a"` + cc + `},{"type":"text","text":"b"` + cc + `},{"type":"text","text":"c"` + cc + `}]},{"role":"assistant","content":[{"type":"text","text":"d"` + cc + `}]},{"role":"user","content":[{"type":"text","text":"e"` + cc + `}]}]`, []string{"cache-breakpoints"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var req antRequest
			body := `{"model":"m","max_tokens":10,"thinking":{"type":"adaptive"},"messages":` + c.msgs + `}`
			if err := json.Unmarshal([]byte(body), &req); err != nil {
				t.Fatal(err)
			}
			bs, turn := checkAnthropic(req, c.beta, sent)
			if got := rules(bs); !slices.Equal(got, c.want) {
				t.Errorf("rules %v, want %v: %v", got, c.want, bs)
			}
			if c.name == "valid" && turn.answered != "call_01" {
				t.Errorf("answered %q", turn.answered)
			}
		})
	}
}

func TestCheckResponses(t *testing.T) {
	sent := sentOf(map[string]call{"call_01": {step: 1, item: "fc_1", reasoning: "rs_1"}})
	rs := func(id string) (string, bool) {
		if id == "rs_1" {
			return "enc_1", true
		}
		return "", false
	}
	user := `{"type":"message","role":"user","content":"go"}`
	reasoning := `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"enc_1"}`
	fc := `{"type":"function_call","id":"fc_1","call_id":"call_01","name":"shell","arguments":"{}"}`
	out := `{"type":"function_call_output","call_id":"call_01","output":"x"}`
	for _, c := range []struct {
		name, items string
		want        []string
	}{
		{"valid", `[` + user + `,` + reasoning + `,` + fc + `,` + out + `]`, nil},
		{"reasoning dropped", `[` + user + `,` + fc + `,` + out + `]`, []string{"reasoning-dropped"}},
		{"reasoning changed", `[` + user + `,` + strings.Replace(reasoning, "enc_1", "enc_2", 1) + `,` + fc + `,` + out + `]`, []string{"reasoning-changed"}},
		{"reasoning alone", `[` + user + `,` + reasoning + `,` + user + `]`, []string{"reasoning-alone"}},
		{"output missing", `[` + user + `,` + reasoning + `,` + fc + `,` + user + `]`, []string{"tool-result-missing"}},
		{"orphan output", `[` + user + `,` + out + `]`, []string{"tool-result-orphan"}},
		{"output twice", `[` + user + `,` + reasoning + `,` + fc + `,` + out + `,` + out + `]`, []string{"tool-result-duplicate"}},
		{"bad role", `[{"type":"message","role":"tool","content":"x"}]`, []string{"role"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var items []item
			if err := json.Unmarshal([]byte(c.items), &items); err != nil {
				t.Fatal(err)
			}
			bs, answered := checkResponses(items, sent, rs)
			if got := rules(bs); !slices.Equal(got, c.want) {
				t.Errorf("rules %v, want %v: %v", got, c.want, bs)
			}
			if c.name == "valid" && answered != "call_01" {
				t.Errorf("answered %q", answered)
			}
		})
	}
}

func TestCheckChat(t *testing.T) {
	call := `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"}}]}`
	res := `{"role":"tool","tool_call_id":"c1","content":"x"}`
	for _, c := range []struct {
		name, msgs string
		want       []string
	}{
		{"valid", `[{"role":"system","content":"s"},{"role":"user","content":"go"},` + call + `,` + res + `]`, nil},
		{"missing", `[{"role":"user","content":"go"},` + call + `,{"role":"user","content":"next"}]`, []string{"tool-result-missing"}},
		{"orphan", `[{"role":"user","content":"go"},` + res + `]`, []string{"tool-result-orphan"}},
		{"twice", `[{"role":"user","content":"go"},` + call + `,` + res + `,` + res + `]`, []string{"tool-result-duplicate"}},
		{"empty assistant", `[{"role":"user","content":"go"},{"role":"assistant","content":null}]`, []string{"empty-content"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var msgs []chatMessage
			if err := json.Unmarshal([]byte(c.msgs), &msgs); err != nil {
				t.Fatal(err)
			}
			bs, _ := checkChat(msgs)
			if got := rules(bs); !slices.Equal(got, c.want) {
				t.Errorf("rules %v, want %v: %v", got, c.want, bs)
			}
		})
	}
}

// TestChatAnswered: the call a Chat Completions request answers is its
// last tool message's, also when media a client attached to that result
// (a user message with a picture, as Qwen Code sends one) comes after it;
// a user message of text answers nothing.
func TestChatAnswered(t *testing.T) {
	call := `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"}}]}`
	res := `{"role":"tool","tool_call_id":"c1","content":"Image overview: 1024x768."}`
	media := `{"role":"user","content":[{"type":"text","text":"(attached media from previous tool call)"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}`
	for _, c := range []struct{ name, msgs, want string }{
		{"result last", `[{"role":"user","content":"go"},` + call + `,` + res + `]`, "c1"},
		{"media after it", `[{"role":"user","content":"go"},` + call + `,` + res + `,` + media + `]`, "c1"},
		{"text after it", `[{"role":"user","content":"go"},` + call + `,` + res + `,{"role":"user","content":[{"type":"text","text":"stop"}]}]`, ""},
		{"media alone", `[` + media + `]`, ""},
	} {
		var msgs []chatMessage
		if err := json.Unmarshal([]byte(c.msgs), &msgs); err != nil {
			t.Fatal(err)
		}
		if _, got := checkChat(msgs); got != c.want {
			t.Errorf("%s: answers %q, want %q", c.name, got, c.want)
		}
	}
}

// taskKeptRules returns the task-kept breaches' rules of bs.
func taskKeptRules(bs breaches) []string {
	var got []string
	for _, r := range rules(bs) {
		if r == "task-kept" {
			got = append(got, r)
		}
	}
	return got
}

// TestTaskKept: a forwarded request must hold the agent's message that
// holds the task byte for byte, or with swc's memory blocks after its own
// content (Anthropic form); folded into a memory (its text still in the
// body), it breaks rule task-kept.
func TestTaskKept(t *testing.T) {
	const task = "Print the step files."
	agentBody := `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"Context. ` + task + `"},{"role":"assistant","content":"ok"},{"role":"user","content":"more"}]}`
	u := &Upstream{Task: task}
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"kept", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"Context. ` + task + `"},{"role":"user","content":"more"}]}`, nil},
		{"folded", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"system","content":"Earlier: User: … ` + task + `"},{"role":"user","content":"more"}]}`, []string{"task-kept"}},
		{"dropped", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"more"}]}`, []string{"task-kept"}},
		{"a memory block after it", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"Context. ` + task + `","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Earlier steps: [swc:h0123456789 ls → 2 lines]"}]},{"role":"user","content":"more"}]}`, nil},
		{"a block after it without a handle", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"Context. ` + task + `"},{"type":"text","text":"something else"}]},{"role":"user","content":"more"}]}`, []string{"task-kept"}},
		{"cut, then a memory block", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"Context."},{"type":"text","text":"[swc:h0123456789 ls → 2 lines] ` + task + `"}]},{"role":"user","content":"more"}]}`, []string{"task-kept"}},
		{"a string task, the memory after a blank line", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"Context. ` + task + `\n\nEarlier steps: [swc:h0123456789 ls → 2 lines]"},{"role":"user","content":"more"}]}`, nil},
		{"a string task, text without a handle after it", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"Context. ` + task + `\n\nsomething else"},{"role":"user","content":"more"}]}`, []string{"task-kept"}},
		{"a string task cut, the memory after it", `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"Context.\n\n[swc:h0123456789 ls → 2 lines] ` + task + `"},{"role":"user","content":"more"}]}`, []string{"task-kept"}},
	} {
		bs, _ := u.checkForwarded("openai", "messages", []byte(c.body), []byte(agentBody), "")
		if got := taskKeptRules(bs); !slices.Equal(got, c.want) {
			t.Errorf("%s: rules %v, want %v", c.name, got, c.want)
		}
	}
	// Gemini: the memory a text part after the task content's own.
	geminiBody := `{"contents":[{"role":"user","parts":[{"text":"Context. ` + task + `"}]},{"role":"model","parts":[{"text":"ok"}]},{"role":"user","parts":[{"text":"more"}]}]}`
	for _, c := range []struct {
		name, part string
		want       []string
	}{
		{"gemini: a memory part", `{"text":"Earlier steps: [swc:h0123456789 ls → 2 lines]"}`, nil},
		{"gemini: another part", `{"text":"Earlier steps: h0123456789","thought":true}`, []string{"task-kept"}},
	} {
		body := `{"contents":[{"role":"user","parts":[{"text":"Context. ` + task + `"},` + c.part + `]},{"role":"user","parts":[{"text":"more"}]}]}`
		bs, _ := u.checkForwarded("gemini", "contents", []byte(body), []byte(geminiBody), "")
		if got := taskKeptRules(bs); !slices.Equal(got, c.want) {
			t.Errorf("%s: rules %v, want %v", c.name, got, c.want)
		}
	}
	// Responses: the memory an input_text part after the task item's own.
	respBody := `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Context. ` + task + `"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]},{"role":"user","content":"more"}]}`
	for _, c := range []struct {
		name, part string
		want       []string
	}{
		{"responses: a memory part", `{"type":"input_text","text":"Earlier steps: [swc:h0123456789 ls → 2 lines]"}`, nil},
		{"responses: another part", `{"type":"input_text","text":"something else"}`, []string{"task-kept"}},
	} {
		body := `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Context. ` + task + `"},` + c.part + `]},{"role":"user","content":"more"}]}`
		bs, _ := u.checkForwarded("responses", "input", []byte(body), []byte(respBody), "")
		if got := taskKeptRules(bs); !slices.Equal(got, c.want) {
			t.Errorf("%s: rules %v, want %v", c.name, got, c.want)
		}
	}
	if m := taskMessage([]byte(agentBody), "messages", ""); m != nil {
		t.Errorf("no task set: the task message is %s", m)
	}
}

func TestCheckGemini(t *testing.T) {
	sent := sentOf(map[string]call{"call_01": {step: 1}})
	fc := `{"role":"model","parts":[{"text":"t","thought":true},{"functionCall":{"id":"call_01","name":"run_shell_command","args":{}},"thoughtSignature":"` + sign("call_01") + `"}]}`
	fr := `{"role":"user","parts":[{"functionResponse":{"id":"call_01","name":"run_shell_command","response":{"output":"x"}}}]}`
	pic := `{"role":"user","parts":[{"text":"Tool result image:"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}`
	noID := func(s string) string { return strings.Replace(s, `"id":"call_01",`, "", 1) }
	for _, c := range []struct {
		name, contents string
		want           []string
	}{
		{"valid", `[{"role":"user","parts":[{"text":"go"}]},` + fc + `,` + fr + `]`, nil},
		{"signature dropped", `[{"role":"user","parts":[{"text":"go"}]},` + strings.Replace(fc, `"thoughtSignature"`, `"x"`, 1) + `,` + fr + `]`, []string{"thought-signature"}},
		{"response missing", `[{"role":"user","parts":[{"text":"go"}]},` + fc + `,{"role":"user","parts":[{"text":"next"}]}]`, []string{"tool-result-missing"}},
		{"orphan response", `[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"text":"ok"}]},` + fr + `]`, []string{"tool-result-orphan"}},
		{"no ids (pi)", `[{"role":"user","parts":[{"text":"go"}]},` + noID(fc) + `,` + noID(fr) + `]`, nil},
		{"no ids, a picture after the response", `[{"role":"user","parts":[{"text":"go"}]},` + noID(fc) + `,` + noID(fr) + `,` + pic + `]`, nil},
		{"no ids, the person's words after the response", `[{"role":"user","parts":[{"text":"go"}]},` + noID(fc) + `,` + noID(fr) + `,{"role":"user","parts":[{"text":"stop"}]}]`, nil},
		{"no ids, signature dropped", `[{"role":"user","parts":[{"text":"go"}]},` + strings.Replace(noID(fc), `"thoughtSignature"`, `"x"`, 1) + `,` + noID(fr) + `]`, []string{"thought-signature"}},
		{"call after a model turn", `[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"text":"ok"}]},` + fc + `,` + fr + `]`, []string{"call-turn"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cs []geminiContent
			if err := json.Unmarshal([]byte(c.contents), &cs); err != nil {
				t.Fatal(err)
			}
			bs, answered := checkGemini(cs, sent, func(s string) string {
				if s == sign("call_01") {
					return "call_01"
				}
				return ""
			})
			if got := rules(bs); !slices.Equal(got, c.want) {
				t.Errorf("rules %v, want %v: %v", got, c.want, bs)
			}
			want := map[string]string{"valid": "call_01", "no ids (pi)": "call_01", "no ids, a picture after the response": "call_01"}[c.name]
			if (want != "" || strings.HasPrefix(c.name, "no ids")) && answered != want {
				t.Errorf("answered %q", answered)
			}
		})
	}
}

// TestKept: the fields swc does not own go out byte for byte, the newest
// message as it came, and the model's own turns as the agent sent them or
// clipped (their text's head and a handle, all else as the agent's).
func TestKept(t *testing.T) {
	orig := `{"model":"m","tools":[{"name":"Bash"}],"x_unknown":{"a":1},"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"x_block","v":1}]},{"role":"user","content":"b"}]}`
	// An old turn of each protocol: its prose, its call and its other
	// blocks, and that turn clipped.
	const (
		prose = "Reading step 1. The file step-01.txt holds the log of orders01. I will print it whole with Bash and note every entry that failed."
		head  = "Reading step 1."
		mark  = " [swc:h0123456789 …]"
	)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	th := "Step 1 of 40: print the next step file with Bash."
	thinking := `{"type":"thinking","thinking":"` + th + `","signature":"` + sign(th) + `"}`
	use := `{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"cat x"}}`
	antTurn := func(text, blocks string) string {
		return `{"role":"assistant","content":[` + blocks + `{"type":"text","text":` + q(text) + `},` + use + `]}`
	}
	antBody := func(turn string) string {
		return `{"model":"m","messages":[{"role":"user","content":"a"},` + turn + `,{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"out"}]},{"role":"user","content":"b"}]}`
	}
	chatTurn := func(text, args string) string {
		return `{"role":"assistant","content":` + q(text) + `,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":` + q(args) + `}}]}`
	}
	chatBody := func(turn string) string {
		return `{"model":"m","messages":[{"role":"user","content":"a"},` + turn + `,{"role":"tool","tool_call_id":"c1","content":"out"},{"role":"user","content":"b"}]}`
	}
	respItems := func(text, args string) string {
		return `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"enc_1"},` +
			`{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":` + q(text) + `,"annotations":[]}]},` +
			`{"type":"function_call","id":"fc_1","call_id":"c1","name":"shell","arguments":` + q(args) + `}`
	}
	respBody := func(items string) string {
		return `{"model":"m","input":[{"type":"message","role":"user","content":"a"},` + items + `,{"type":"function_call_output","call_id":"c1","output":"out"}]}`
	}
	gemTurn := func(text, sig string) string {
		return `{"role":"model","parts":[{"text":"t","thought":true},{"text":` + q(text) + `},{"functionCall":{"id":"c1","name":"run_shell_command","args":{"command":"cat x"}},"thoughtSignature":"` + sig + `"}]}`
	}
	gemBody := func(turn string) string {
		return `{"contents":[{"role":"user","parts":[{"text":"a"}]},` + turn + `,{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"out"}}}]}]}`
	}
	args := `{"command":"cat x"}`
	// An old call's long argument, and swc's clipped form of it.
	desc := "Print the file of step 1.\nIt holds the log of orders01, thirty-six lines.\nEach names its handler."
	longArgs := `{"command":"cat x","description":` + q(desc) + `}`
	clipArgs := `{"command":"cat x","description":` + q("Print the file of step 1.\n[swc:h0123456789 … 2 more lines, 19 tokens left out]") + `}`
	badClip := `{"command":"cat x","description":` + q("Print the file of step 2.\n[swc:h0123456789 … 2 more lines, 19 tokens left out]") + `}`
	antLong := func(text, blocks, input string) string {
		return strings.Replace(antTurn(text, blocks), `"input":{"command":"cat x"}`, `"input":`+input, 1)
	}
	gemLong := func(text, input string) string {
		return strings.Replace(gemTurn(text, "sig"), `"args":{"command":"cat x"}`, `"args":`+input, 1)
	}
	for _, c := range []struct {
		name          string
		format, field string // "": anthropic, messages
		orig, fwd     string // orig "": the one above
		want          []string
		clipped       int // turns sameTurns says came clipped
	}{
		{"kept", "", "", "", `{"model":"m","tools":[{"name":"Bash"}],"x_unknown":{"a":1},"messages":[{"role":"user","content":"b"}]}`, nil, 0},
		{"unknown field dropped", "", "", "", `{"model":"m","tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"b"}]}`, []string{"field-dropped"}, 0},
		{"tools re-encoded", "", "", "", `{"model":"m","tools":[{"name": "Bash"}],"x_unknown":{"a":1},"messages":[{"role":"user","content":"b"}]}`, []string{"field-changed"}, 0},
		{"field added", "", "", "", `{"model":"m","tools":[{"name":"Bash"}],"x_unknown":{"a":1},"temperature":0,"messages":[{"role":"user","content":"b"}]}`, []string{"field-added"}, 0},
		{"last message changed", "", "", "", `{"model":"m","tools":[{"name":"Bash"}],"x_unknown":{"a":1},"messages":[{"role":"user","content":"b "}]}`, []string{"last-changed"}, 0},
		{"assistant turn kept", "", "", "", `{"model":"m","tools":[{"name":"Bash"}],"x_unknown":{"a":1},"messages":[{"role":"assistant","content":[{"type":"x_block","v":1}]},{"role":"user","content":"b"}]}`, nil, 0},
		{"assistant turn re-encoded", "", "", "", `{"model":"m","tools":[{"name":"Bash"}],"x_unknown":{"a":1},"messages":[{"role":"assistant","content":[{"v":1,"type":"x_block"}]},{"role":"user","content":"b"}]}`, []string{"turn-changed"}, 0},

		{"anthropic: clipped", "", "", antBody(antTurn(prose, thinking+",")), antBody(antTurn(head+mark, thinking+",")), nil, 1},
		{"anthropic: clipped, a fenced block kept", "", "", antBody(antTurn(prose+"\n```sh\nls\n```", thinking+",")), antBody(antTurn(head+mark+"\n\n```sh\nls\n```", thinking+",")), nil, 1},
		{"anthropic: clipped, a fenced block changed", "", "", antBody(antTurn(prose+"\n```sh\nls\n```", thinking+",")), antBody(antTurn(head+mark+"\n\n```sh\nls -la\n```", thinking+",")), []string{"turn-changed"}, 0},
		{"anthropic: clipped, a fenced block dropped", "", "", antBody(antTurn(prose+"\n```sh\nls\n```", thinking+",")), antBody(antTurn(head+mark, thinking+",")), []string{"turn-changed"}, 0},
		{"anthropic: clipped, the turn opens with its block", "", "", antBody(antTurn("```sh\nls\n```\n"+prose, thinking+",")), antBody(antTurn(head+mark+"\n\n```sh\nls\n```", thinking+",")), nil, 1},
		{"anthropic: clipped, two text blocks one", "", "", antBody(antTurn(prose, thinking+`,{"type":"text","text":"First."},`)), antBody(antTurn("First."+mark, thinking+",")), nil, 1},
		{"anthropic: clipped, the call's input changed", "", "", antBody(antTurn(prose, thinking+",")), antBody(strings.Replace(antTurn(head+mark, thinking+","), "cat x", "cat y", 1)), []string{"turn-changed"}, 0},
		{"anthropic: clipped without its thinking", "", "", antBody(antTurn(prose, thinking+",")), antBody(antTurn(head+mark, "")), nil, 1},
		{"anthropic: clipped without its thinking, the call's input changed", "", "", antBody(antTurn(prose, thinking+",")), antBody(strings.Replace(antTurn(head+mark, ""), "cat x", "cat y", 1)), []string{"turn-changed"}, 0},
		{"anthropic: whole without its thinking", "", "", antBody(antTurn(prose, thinking+",")), antBody(antTurn(prose, "")), nil, 0},
		{"anthropic: without its thinking and its text changed", "", "", antBody(antTurn(prose, thinking+",")), antBody(antTurn(prose+" ", "")), []string{"turn-changed"}, 0},
		{"anthropic: without a thinking block it never had", "", "", antBody(antTurn(prose, "")), antBody(antTurn(prose, "")), nil, 0},
		{"anthropic: without its redacted_thinking", "", "", antBody(antTurn(prose, `{"type":"redacted_thinking","data":"abc"},`)), antBody(antTurn(prose, "")), nil, 0},
		{"anthropic: a tool_use dropped, not a reasoning block", "", "", antBody(antTurn(prose, thinking+",")), antBody(strings.Replace(antTurn(prose, thinking+","), ","+use, "", 1)), []string{"turn-changed"}, 0},
		{"anthropic: clipped, the signature changed", "", "", antBody(antTurn(prose, thinking+",")), antBody(antTurn(head+mark, strings.Replace(thinking, sign(th), sign("x"), 1)+",")), []string{"turn-changed"}, 0},
		{"anthropic: clipped text not a prefix", "", "", antBody(antTurn(prose, thinking+",")), antBody(antTurn("Reading step 2."+mark, thinking+",")), []string{"turn-changed"}, 0},
		{"anthropic: shortened without a handle", "", "", antBody(antTurn(prose, thinking+",")), antBody(antTurn(head, thinking+",")), []string{"turn-changed"}, 0},
		{"anthropic: a handle of the wrong shape", "", "", antBody(antTurn(prose, thinking+",")), antBody(antTurn(head+" [swc:h0123 …]", thinking+",")), []string{"turn-changed"}, 0},

		{"chat: clipped", "openai", "messages", chatBody(chatTurn(prose, args)), chatBody(chatTurn(head+mark, args)), nil, 1},
		{"chat: clipped, the call's arguments changed", "openai", "messages", chatBody(chatTurn(prose, args)), chatBody(chatTurn(head+mark, `{"command":"cat y"}`)), []string{"turn-changed"}, 0},
		{"chat: clipped text not a prefix", "openai", "messages", chatBody(chatTurn(prose, args)), chatBody(chatTurn("I will print it."+mark, args)), []string{"turn-changed"}, 0},

		{"responses: clipped", "responses", "input", respBody(respItems(prose, args)), respBody(respItems(head+mark, args)), nil, 1},
		{"responses: clipped, the call's arguments changed", "responses", "input", respBody(respItems(prose, args)), respBody(respItems(head+mark, `{"command":"cat y"}`)), []string{"turn-changed"}, 1},
		{"responses: clipped, the message's id changed", "responses", "input", respBody(respItems(prose, args)), respBody(strings.Replace(respItems(head+mark, args), "msg_1", "msg_2", 1)), []string{"turn-changed"}, 0},

		{"anthropic: a call's long argument clipped", "", "", antBody(antLong(prose, thinking+",", longArgs)), antBody(antLong(prose, thinking+",", clipArgs)), nil, 1},
		{"anthropic: prose and a long argument clipped, thinking gone", "", "", antBody(antLong(prose, thinking+",", longArgs)), antBody(antLong(head+mark, "", clipArgs)), nil, 1},
		{"anthropic: a clipped argument not a prefix", "", "", antBody(antLong(prose, thinking+",", longArgs)), antBody(antLong(prose, thinking+",", badClip)), []string{"turn-changed"}, 0},
		{"anthropic: a long argument clipped, another changed", "", "", antBody(antLong(prose, thinking+",", longArgs)), antBody(antLong(prose, thinking+",", strings.Replace(clipArgs, "cat x", "cat y", 1))), []string{"turn-changed"}, 0},
		{"anthropic: a long argument cut without the mark", "", "", antBody(antLong(prose, thinking+",", longArgs)), antBody(antLong(prose, thinking+",", `{"command":"cat x","description":"Print the file of step 1."}`)), []string{"turn-changed"}, 0},
		{"chat: a call's long argument clipped", "openai", "messages", chatBody(chatTurn(prose, longArgs)), chatBody(chatTurn(head+mark, clipArgs)), nil, 1},
		{"chat: a clipped argument not a prefix", "openai", "messages", chatBody(chatTurn(prose, longArgs)), chatBody(chatTurn(prose, badClip)), []string{"turn-changed"}, 0},
		{"responses: a call's long argument clipped", "responses", "input", respBody(respItems(prose, longArgs)), respBody(respItems(head+mark, clipArgs)), nil, 1},
		{"gemini: a call's long argument clipped", "gemini", "contents", gemBody(gemLong(prose, longArgs)), gemBody(gemLong(head+mark, clipArgs)), nil, 1},
		{"gemini: a call's long argument clipped, its signature changed", "gemini", "contents", gemBody(gemLong(prose, longArgs)), gemBody(strings.Replace(gemLong(head+mark, clipArgs), `"sig"`, `"sig2"`, 1)), []string{"turn-changed"}, 0},

		{"gemini: clipped", "gemini", "contents", gemBody(gemTurn(prose, "sig")), gemBody(gemTurn(head+mark, "sig")), nil, 1},
		{"gemini: clipped, the call's signature changed", "gemini", "contents", gemBody(gemTurn(prose, "sig")), gemBody(gemTurn(head+mark, "sig2")), []string{"turn-changed"}, 0},
		{"gemini: clipped without its unsigned thought", "gemini", "contents", gemBody(gemTurn(prose, "sig")), gemBody(strings.Replace(gemTurn(head+mark, "sig"), `{"text":"t","thought":true},`, "", 1)), nil, 1},
		{"gemini: without a signed thought", "gemini", "contents", gemBody(strings.Replace(gemTurn(prose, "sig"), `"thought":true}`, `"thought":true,"thoughtSignature":"ts"}`, 1)), gemBody(strings.Replace(gemTurn(head+mark, "sig"), `{"text":"t","thought":true},`, "", 1)), []string{"turn-changed"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			format, field, o := cmp.Or(c.format, "anthropic"), cmp.Or(c.field, "messages"), []byte(cmp.Or(c.orig, orig))
			fwd := []byte(c.fwd)
			if !json.Valid(fwd) || !json.Valid(o) {
				t.Fatalf("not JSON: %s / %s", fwd, o)
			}
			bs := append(sameFields(fwd, o, field), sameLast(fwd, o, field)...)
			tbs, clipped, calls, _ := sameTurns(format, fwd, o, field)
			for _, h := range calls {
				if !slices.Contains(clipped, h) {
					clipped = append(clipped, h)
				}
			}
			bs = append(bs, tbs...)
			if got := rules(bs); !slices.Equal(got, c.want) || len(clipped) != c.clipped {
				t.Errorf("rules %v, clipped %v; want %v, %d clipped: %v", got, clipped, c.want, c.clipped, bs)
			}
			for _, h := range clipped {
				if h != "h0123456789" {
					t.Errorf("clipped turn's handle %q", h)
				}
			}
		})
	}
}

// TestCallArguments: the script fills each agent's tool by its schema.
func TestCallArguments(t *testing.T) {
	for _, c := range []struct {
		tools []Tool
		want  string
	}{
		{[]Tool{{"Read", json.RawMessage(`{"properties":{"file_path":{"type":"string"}}}`)}, {"Bash", json.RawMessage(`{"properties":{"command":{"type":"string"},"timeout":{"type":"number"}},"required":["command"]}`)}},
			`{"command":"cat /w/step-03.txt"}`},
		{[]Tool{{"shell", json.RawMessage(`{"properties":{"command":{"type":"array"},"workdir":{"type":"string"}},"required":["command"]}`)}},
			`{"command":["bash","-lc","cat /w/step-03.txt"]}`},
		{[]Tool{{"exec_command", json.RawMessage(`{"properties":{"cmd":{"type":"string"},"yield_time_ms":{"type":"number"}},"required":["cmd"]}`)}},
			`{"cmd":"cat /w/step-03.txt"}`},
		{[]Tool{{"run_shell_command", json.RawMessage(`{"type":"OBJECT","properties":{"command":{"type":"STRING"},"description":{"type":"STRING"},"dir_path":{"type":"STRING"}},"required":["command"]}`)}},
			`{"command":"cat /w/step-03.txt","description":` + strconv.Quote(Description(3, "/w/step-03.txt")) + `}`},
		{[]Tool{{"read_file", json.RawMessage(`{"properties":{"path":{"type":"string"}},"required":["path"]}`)}},
			`{"path":"/w/step-03.txt"}`},
	} {
		tool, ok := pickTool(c.tools)
		if !ok {
			t.Fatalf("no tool picked of %v", c.tools)
		}
		got, err := callArguments(tool, "/w/step-03.txt", 3)
		if err != nil || got != c.want {
			t.Errorf("%s: %s, %v; want %s", tool.Name, got, err, c.want)
		}
	}
	if _, ok := pickTool([]Tool{{Name: "WebSearch"}}); ok {
		t.Error("picked a tool the script cannot use")
	}
}

func TestCheckRecall(t *testing.T) {
	const def = `{"type":"function","function":{"name":"swc_recall"}}`
	tools := `[{"type":"function","function":{"name":"bash"}}]`
	withDef := `[{"type":"function","function":{"name":"bash"}},` + def + `]`
	out := "line 1\nline 2"
	h := observe.Handle("call_01", out)
	call01 := `{"role":"assistant","content":null,"tool_calls":[{"id":"call_01"}]}`
	agentMsgs := `[{"role":"user","content":"go"},` + call01 + `,{"role":"tool","tool_call_id":"call_01","content":"line 1\nline 2"}]`
	stubbed := `[{"role":"user","content":"go"},` + call01 + `,{"role":"tool","tool_call_id":"call_01","content":"[swc:` + h + ` bash(cat x) → ok]"}]`
	body := func(tools, msgs string) []byte {
		return []byte(`{"model":"m","tools":` + tools + `,"messages":` + msgs + `}`)
	}
	agent := body(tools, agentMsgs)
	// An agent that uses the id again in its next turn: the stub of the
	// first output shows the first output's handle.
	reused := strings.TrimSuffix(agentMsgs, "]") + `,` + call01 + `,{"role":"tool","tool_call_id":"call_01","content":"other output"}]`
	reusedStubbed := strings.TrimSuffix(stubbed, "]") + `,` + call01 + `,{"role":"tool","tool_call_id":"call_01","content":"other output"}]`
	// An output passed on as it came that happens to hold a stub's shape.
	call02 := `{"role":"assistant","content":null,"tool_calls":[{"id":"call_02"}]}`
	lookalike := `,` + call02 + `,{"role":"tool","tool_call_id":"call_02","content":"log: [swc:h0123456789 bash(ls) → ok]"}]`
	withLookalike := strings.TrimSuffix(agentMsgs, "]") + lookalike
	stubbedLookalike := strings.TrimSuffix(stubbed, "]") + lookalike
	for _, c := range []struct {
		name      string
		fwd, orig []byte
		want      []string
		ask       bool
	}{
		{"fits: as it came", agent, agent, nil, false},
		{"compressed: swc_recall appended, asked", body(withDef, stubbed), agent, nil, true},
		{"compressed without swc_recall", body(tools, stubbed), agent, []string{"recall-missing"}, false},
		{"swc_recall with nothing to recall", body(withDef, agentMsgs), agent, []string{"recall-uncompressed"}, false},
		{"tools otherwise changed", body(`[`+def+`]`, stubbed), agent, []string{"field-changed"}, false},
		{"the agent's request holds swc_recall", body(tools, agentMsgs), body(withDef, agentMsgs), []string{"field-changed", "recall-leaked"}, false},
		{"a call id used again: the earlier output's stub", body(withDef, reusedStubbed), body(tools, reused), nil, true},
		{"an output as it came holding a stub's shape", body(withDef, stubbedLookalike), body(tools, withLookalike), nil, true},
		{"a stub whose handle is not its original's", body(withDef, strings.Replace(stubbed, h, "h0123456789", 1)), agent, []string{"recall-handle"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := &Upstream{out: map[string]call{}, RecallTools: map[string]string{"openai": def}}
			bs, round, ask := u.checkRecall("openai", "messages", c.fwd, c.orig, "call_01")
			if got := rules(bs); !slices.Equal(got, c.want) || round || (ask != nil) != c.ask {
				t.Fatalf("rules %v, round %v, ask %v; want %v, ask %v: %v", got, round, ask != nil, c.want, c.ask, bs)
			}
			if ask == nil {
				return
			}
			if ask.handle != h || ask.want != out {
				t.Fatalf("ask %s %q", ask.handle, ask.want)
			}
			if string(c.orig) != string(agent) { // the round below answers the one-turn request
				return
			}
			u.out["call_recall_0001"] = call{step: 1, rec: ask}
			recallCall := `{"role":"assistant","content":null,"tool_calls":[{"id":"call_recall_0001"}]}`
			for _, r := range []struct {
				result string
				want   []string
			}{{`"line 1\nline 2"`, nil}, {`"line 1"`, []string{"recall-result"}}} {
				u.st.Recall.Answered = false
				msgs := strings.TrimSuffix(stubbed, "]") + `,` + recallCall + `,{"role":"tool","tool_call_id":"call_recall_0001","content":` + r.result + `}]`
				bs, round, _ := u.checkRecall("openai", "messages", body(withDef, msgs), agent, "call_recall_0001")
				if got := rules(bs); !slices.Equal(got, r.want) || !round || u.st.Recall.Answered != (r.want == nil) {
					t.Errorf("swc's round answering %s: rules %v, round %v, answered %v; want %v", r.result, got, round, u.st.Recall.Answered, r.want)
				}
			}
		})
	}
}

func TestCheckRecallGemini(t *testing.T) {
	const def = `{"name":"swc_recall"}`
	tools := `[{"functionDeclarations":[{"name":"run_shell_command"}]}]`
	withDef := `[{"functionDeclarations":[{"name":"run_shell_command"},` + def + `]}]`
	out := "line 1\nline 2"
	h := observe.Handle("call_01", out)
	call01 := `{"role":"model","parts":[{"functionCall":{"id":"call_01","name":"run_shell_command","args":{}}}]}`
	result := func(id, output string) string {
		return `{"role":"user","parts":[{"functionResponse":{"id":"` + id + `","name":"run_shell_command","response":{"output":` + output + `}}}]}`
	}
	agentContents := `[{"role":"user","parts":[{"text":"go"}]},` + call01 + `,` + result("call_01", `"line 1\nline 2"`) + `]`
	stubbed := `[{"role":"user","parts":[{"text":"go"}]},` + call01 + `,` + result("call_01", `"[swc:`+h+` run_shell_command(cat x) → ok]"`) + `]`
	body := func(tools, contents string) []byte {
		return []byte(`{"tools":` + tools + `,"contents":` + contents + `}`)
	}
	agent := body(tools, agentContents)
	u := &Upstream{out: map[string]call{}, RecallTools: map[string]string{"gemini": def}}
	if bs, _, _ := u.checkRecall("gemini", "contents", body(`[{"functionDeclarations":[{"name":"run_shell_command"}]},{"functionDeclarations":[`+def+`]}]`, stubbed), agent, "call_01"); !slices.Equal(rules(bs), []string{"field-changed"}) {
		t.Errorf("swc_recall in an entry of its own: rules %v; want field-changed", rules(bs))
	}
	bs, round, ask := u.checkRecall("gemini", "contents", body(withDef, stubbed), agent, "call_01")
	if len(bs) > 0 || round || ask == nil || ask.handle != h || ask.want != out {
		t.Fatalf("compressed, swc_recall declared: rules %v, round %v, ask %+v", rules(bs), round, ask)
	}
	u.out["call_recall_0001"] = call{step: 1, rec: ask}
	recallCall := `{"role":"model","parts":[{"functionCall":{"id":"call_recall_0001","name":"swc_recall","args":{}}}]}`
	for _, r := range []struct {
		result string
		want   []string
	}{{`"line 1\nline 2"`, nil}, {`"line 1"`, []string{"recall-result"}}} {
		u.st.Recall.Answered = false
		contents := strings.TrimSuffix(stubbed, "]") + `,` + recallCall + `,` + strings.Replace(result("call_recall_0001", r.result), "run_shell_command", "swc_recall", 1) + `]`
		bs, round, _ := u.checkRecall("gemini", "contents", body(withDef, contents), agent, "call_recall_0001")
		if got := rules(bs); !slices.Equal(got, r.want) || !round || u.st.Recall.Answered != (r.want == nil) {
			t.Errorf("swc's round answering %s: rules %v, round %v, answered %v; want %v", r.result, got, round, u.st.Recall.Answered, r.want)
		}
	}
}

// TestDropBlockAdded: the one change of the agent's thinking field swc
// may make is adding block_binding's "drop_block" where the agent set no
// block_binding.
func TestDropBlockAdded(t *testing.T) {
	for _, c := range []struct {
		name, fwd, orig string
		want            bool
	}{
		{"added", `{"block_binding":{"prefix_mismatch_behavior":"drop_block"},"type":"adaptive"}`, `{"type":"adaptive"}`, true},
		{"added, members reordered", `{"budget_tokens":10,"type":"enabled","block_binding":{"prefix_mismatch_behavior":"drop_block"}}`, `{"type":"enabled","budget_tokens":10}`, true},
		{"another behaviour", `{"block_binding":{"prefix_mismatch_behavior":"error"},"type":"adaptive"}`, `{"type":"adaptive"}`, false},
		{"the agent's binding replaced", `{"block_binding":{"prefix_mismatch_behavior":"drop_block"},"type":"adaptive"}`, `{"type":"adaptive","block_binding":{"prefix_mismatch_behavior":"error"}}`, false},
		{"the type changed too", `{"block_binding":{"prefix_mismatch_behavior":"drop_block"},"type":"enabled"}`, `{"type":"adaptive"}`, false},
	} {
		if got := wiretest.DropBlockAdded([]byte(c.fwd), []byte(c.orig)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	orig := `{"model":"m","thinking":{"type":"adaptive"},"messages":[]}`
	fwd := `{"model":"m","thinking":{"block_binding":{"prefix_mismatch_behavior":"drop_block"},"type":"adaptive"},"messages":[]}`
	if bs := sameFields([]byte(fwd), []byte(orig), "messages"); len(bs) != 0 {
		t.Errorf("drop_block added: %v", bs)
	}
	if bs := sameFields([]byte(strings.Replace(fwd, "adaptive", "enabled", 1)), []byte(orig), "messages"); len(bs) != 1 {
		t.Errorf("thinking changed otherwise: %v", bs)
	}
}

// TestResolveRefs: a reference becomes the item the upstream sent under
// its id, and the rest of the body keeps its bytes (no <, >, & escaped),
// so the byte-for-byte checks compare what the agent sent.
func TestResolveRefs(t *testing.T) {
	u := &Upstream{items: map[string]json.RawMessage{"fc_1": json.RawMessage(`{"type":"function_call","id":"fc_1","call_id":"c1","name":"read_file","arguments":"{}"}`)}}
	orig := `{"model":"m","input":[{"role":"user","content":"<task> a & b </task>"},{"type":"item_reference","id":"fc_1"},{"type":"function_call_output","call_id":"c1","output":"x"}]}`
	got := string(u.resolveRefs([]byte(orig)))
	for _, want := range []string{`{"role":"user","content":"<task> a & b </task>"}`, `"call_id":"c1","name":"read_file"`} {
		if !strings.Contains(got, want) {
			t.Errorf("resolved body %s lacks %s", got, want)
		}
	}
	if strings.Contains(got, "item_reference") {
		t.Errorf("resolved body still holds a reference: %s", got)
	}
	unknown := `{"input":[{"type":"item_reference","id":"fc_9"}]}`
	if got := string(u.resolveRefs([]byte(unknown))); got != unknown {
		t.Errorf("a reference the upstream never sent: %s, want the body as it came", got)
	}
}

// TestToolResultsGemini: a Gemini response without an id is known by its
// call's name and arguments (key order aside) and named in handles by
// swc's place id, content and part of the call; one with an id by it.
func TestToolResultsGemini(t *testing.T) {
	elems := []json.RawMessage{
		json.RawMessage(`{"role":"user","parts":[{"text":"go"}]}`),
		json.RawMessage(`{"role":"model","parts":[{"text":"t","thought":true},{"functionCall":{"name":"read","args":{"path":"a","offset":1}}},{"functionCall":{"name":"read","args":{"offset":2,"path":"b"}}}]}`),
		json.RawMessage(`{"role":"user","parts":[{"functionResponse":{"name":"read","response":{"output":"A"}}},{"functionResponse":{"name":"read","response":{"output":"B"}}}]}`),
		json.RawMessage(`{"role":"model","parts":[{"functionCall":{"id":"call_03","name":"bash","args":{}}}]}`),
		json.RawMessage(`{"role":"user","parts":[{"functionResponse":{"id":"call_03","name":"bash","response":{"output":"C"}}}]}`),
	}
	want := []toolResult{
		{`call:read:{"offset":1,"path":"a"}`, "A", "gemini:1:1"},
		{`call:read:{"offset":2,"path":"b"}`, "B", "gemini:1:2"},
		{"call_03", "C", "call_03"},
	}
	if got := toolResults("gemini", elems); !slices.Equal(got, want) {
		t.Errorf("toolResults\n%q\nwant\n%q", got, want)
	}
}

// TestCheckGeminiCache: a request naming a cachedContent must not set
// systemInstruction, tools or toolConfig (the API answers 400).
func TestCheckGeminiCache(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"no cache", `{"systemInstruction":{"parts":[{"text":"s"}]},"contents":[]}`, nil},
		{"cache alone", `{"cachedContent":"cachedContents/a","contents":[]}`, nil},
		{"cache null", `{"cachedContent":null,"tools":[{}],"contents":[]}`, nil},
		{"cache and instruction", `{"cachedContent":"cachedContents/a","systemInstruction":{"parts":[{"text":"MEM"}]},"contents":[]}`, []string{"cached-content"}},
		{"snake case, tools and config", `{"cached_content":"cachedContents/a","tools":[{}],"tool_config":{},"contents":[]}`, []string{"cached-content"}},
	} {
		if got := rules(checkGeminiCache([]byte(c.body))); !slices.Equal(got, c.want) {
			t.Errorf("%s: rules %v, want %v", c.name, got, c.want)
		}
	}
}
