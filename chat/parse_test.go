package chat

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

const openaiArray = `[
 {"role":"system","content":"You are helpful."},
 {"role":"user","name":"maya","content":[{"type":"text","text":"Hi, what's the weather?"},{"type":"image_url","image_url":{"url":"x"}}],"created_at":1715090400},
 {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Berlin\"}"}}],"timestamp":"2024-05-07T14:01:00Z"},
 {"role":"tool","tool_call_id":"c1","content":"12°C, rain","created_at":"2024-05-07T14:01:01Z"},
 {"role":"assistant","content":"It's 12°C and raining in Berlin."}
]`

func TestParseOpenAI(t *testing.T) {
	for name, data := range map[string]string{
		"array": openaiArray,
		"body":  `{"model":"gpt-4o","temperature":0,"messages":` + openaiArray + `}`,
		"jsonl": jsonlOf(t, openaiArray),
	} {
		t.Run(name, func(t *testing.T) {
			in, err := Parse([]byte(data), Auto)
			if err != nil {
				t.Fatal(err)
			}
			if in.Format != OpenAI || len(in.Messages) != 5 || len(in.Raw) != 5 {
				t.Fatalf("format %s, %d messages, %d raw", in.Format, len(in.Messages), len(in.Raw))
			}
			m := in.Messages
			if m[1].Name != "maya" || m[1].Content != "Hi, what's the weather?\n[image_url]" {
				t.Errorf("parts: %+v", m[1])
			}
			if !m[1].Time.Equal(time.Date(2024, 5, 7, 14, 0, 0, 0, time.UTC)) {
				t.Errorf("created_at unix: %v", m[1].Time)
			}
			if len(m[2].ToolCalls) != 1 || m[2].ToolCalls[0] != (swc.ToolCall{ID: "c1", Name: "weather", Arguments: `{"city":"Berlin"}`}) {
				t.Errorf("tool calls: %+v", m[2].ToolCalls)
			}
			if m[3].Role != swc.RoleTool || m[3].ToolCallID != "c1" || m[3].Time.IsZero() {
				t.Errorf("tool result: %+v", m[3])
			}
			if name == "body" && string(in.Body["model"]) != `"gpt-4o"` {
				t.Errorf("body fields lost: %v", in.Body)
			}
		})
	}
}

// jsonlOf turns a JSON array literal into JSONL.
func jsonlOf(t *testing.T, arr string) string {
	elems, _, _, err := splitTop([]byte(arr), "messages")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range elems {
		b.Write(e)
		b.WriteByte('\n')
	}
	return b.String()
}

const anthropicBody = `{"model":"claude-haiku-4-5","max_tokens":512,
 "system":[{"type":"text","text":"You are helpful.","cache_control":{"type":"ephemeral"}}],
 "messages":[
  {"role":"user","content":"What's the weather in Berlin?","timestamp":"2024-05-07T14:00:00Z"},
  {"role":"assistant","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"tu1","name":"weather","input":{"city":"Berlin"}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"tu1","content":[{"type":"text","text":"12°C"}]},{"type":"text","text":"And tomorrow?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]},
  {"role":"assistant","content":"Sunny."}
 ]}`

func TestParseAnthropic(t *testing.T) {
	in, err := Parse([]byte(anthropicBody), Auto)
	if err != nil {
		t.Fatal(err)
	}
	if in.Format != Anthropic {
		t.Fatalf("detected %s", in.Format)
	}
	want := []struct {
		role    swc.Role
		content string
		origin  int
	}{
		{swc.RoleSystem, "You are helpful.", -1},
		{swc.RoleUser, "What's the weather in Berlin?", 0},
		{swc.RoleAssistant, "Checking.", 1},
		{swc.RoleTool, "12°C", 2},
		{swc.RoleUser, "And tomorrow?\n[image]", 2},
		{swc.RoleAssistant, "Sunny.", 3},
	}
	if len(in.Messages) != len(want) {
		t.Fatalf("got %d messages: %+v", len(in.Messages), in.Messages)
	}
	for i, w := range want {
		m := in.Messages[i]
		if m.Role != w.role || m.Content != w.content || in.Origin[i] != w.origin {
			t.Errorf("message %d: %s %q origin %d, want %s %q %d", i, m.Role, m.Content, in.Origin[i], w.role, w.content, w.origin)
		}
	}
	if tc := in.Messages[2].ToolCalls; len(tc) != 1 || tc[0].Arguments != `{"city":"Berlin"}` || in.Messages[3].ToolCallID != "tu1" {
		t.Errorf("tool pair: %+v / %+v", tc, in.Messages[3])
	}
}

func TestParseJSONL(t *testing.T) {
	data := `{"time":"2024-05-07T14:00:00Z","speaker":"Maya","text":"I adopted a dog yesterday.","session":"a"}
{"time":"2024-05-07T14:01:00Z","speaker":"Jonas","text":"Congrats!"}
{"time":1715097600,"speaker":"Maya","text":"Her name is Pixel.","session":"b"}`
	in, err := Parse([]byte(data), Auto)
	if err != nil {
		t.Fatal(err)
	}
	if in.Format != JSONL || len(in.Messages) != 3 {
		t.Fatalf("%s, %d messages", in.Format, len(in.Messages))
	}
	m := in.Messages
	if m[0].Role != swc.RoleUser || m[1].Role != swc.RoleAssistant || m[2].Role != swc.RoleUser || m[1].Name != "Jonas" || m[2].Session != "b" {
		t.Errorf("roles/names/sessions: %+v", m)
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Format
		err  string
	}{
		{openaiArray, OpenAI, ""},
		{anthropicBody, Anthropic, ""},
		{`{"messages":[{"role":"user","content":"hi"}]}`, OpenAI, ""},
		{`[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"y"}]}]`, Anthropic, ""},
		{`{"speaker":"A","text":"hi","time":"2024-01-01T00:00:00Z"}`, JSONL, ""},
		{`[{"sample_id":"conv-1","conversation":{}}]`, LoCoMo, ""},
		// A body with "input": Responses unless something only the
		// Interactions API has is there.
		{`{"model":"gpt-5","input":"hi"}`, Responses, ""},
		{`{"model":"gpt-5","instructions":"be brief","input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]}`, Responses, ""},
		{`{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`, Responses, ""},
		{`{"model":"gemini-3-flash-preview","input":"hi"}`, Interactions, ""},
		{`{"model":"models/gemma-3-27b-it","input":"hi"}`, Interactions, ""},
		{`{"model":"m","system_instruction":"be brief","input":"hi"}`, Interactions, ""},
		{`{"agent":"deep-research-pro-preview","input":"hi"}`, Interactions, ""},
		{`{"model":"m","input":{"type":"text","text":"hi"}}`, Interactions, ""},
		{`{"model":"m","input":[{"type":"user_input","content":[{"type":"text","text":"hi"}]}]}`, Interactions, ""},
		{`{"model":"m","input":[{"role":"user","content":"hi"},{"role":"model","content":"hello"}]}`, Interactions, ""},
		{`{"model":"m","input":[{"type":"text","text":"hi"}]}`, Interactions, ""},
		// A Responses request to a Gemini or Gemma model through an
		// OpenAI-compatible server, once it holds an answer or a field of
		// its own; a message with an "input" member of its own.
		{`{"model":"gemma3:27b","input":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`, Responses, ""},
		{`{"model":"gemini/gemini-2.5-flash","instructions":"be brief","input":"hi"}`, Responses, ""},
		{`{"model":"gemini-2.5-flash","input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"}]}`, Responses, ""},
		{`{"role":"user","content":"hi","input":"x"}`, OpenAI, ""},
		{`{"speaker":"A","text":"hi","time":"2024-01-01T00:00:00Z","input":"x"}`, JSONL, ""},
		{"  \n", "", "empty input"},
		{`hello`, "", "tried openai"},
		{`[{"foo":1}]`, "", "tried openai"},
		{`{"foo":1}`, "", "tried openai"},
		{`[1,2`, "", "not a JSON array"},
	} {
		got, err := Detect([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Detect(%.30q) = %s, %v; want error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Detect(%.30q) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

// TestBadInput: every kind of bad input is one clear error naming the
// message and field, never a panic.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		f        Format
		want     string
	}{
		{"empty list", `[]`, Auto, "no messages"},
		{"empty body", `{"messages":[]}`, Auto, "no messages"},
		{"unknown role", `[{"role":"user","content":"a"},{"role":"robot","content":"b"}]`, Auto, `messages[1].role: unknown role "robot"`},
		{"missing role", `[{"content":"b"}]`, OpenAI, `messages[0].role: missing`},
		{"orphan result", `[{"role":"user","content":"a"},{"role":"tool","tool_call_id":"c9","content":"x"}]`, Auto, `messages[1].tool_call_id: "c9" answers no tool call`},
		{"call without result", `[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"b"}]`, Auto, `messages[1].tool_calls: call "c1" has no result`},
		{"call at end without result", `[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}]`, Auto, `messages[1].tool_calls: call "c1" has no result`},
		{"time backwards", `[{"role":"user","content":"a","timestamp":"2024-05-07T14:00:00Z"},{"role":"assistant","content":"b","timestamp":"2024-05-07T13:00:00Z"}]`, Auto, `messages[1].timestamp: 2024-05-07T13:00:00Z is before messages[0]`},
		{"bad timestamp", `[{"role":"user","content":"a","timestamp":"yesterday"}]`, Auto, `messages[0].timestamp: "yesterday" is not an RFC 3339 time`},
		{"bad created_at", `[{"role":"user","content":"a","created_at":true}]`, Auto, `messages[0].created_at: want an RFC 3339 string or Unix seconds`},
		{"non-UTF-8", "[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"user\",\"content\":\"\xff\xfe\"}]", Auto, `messages[1]: not valid UTF-8`},
		{"non-UTF-8 jsonl", "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"\xff\"}", Auto, `line 2: not valid UTF-8`},
		{"mixed jsonl", "{\"role\":\"user\",\"content\":\"a\"}\n{\"speaker\":\"Maya\",\"text\":\"b\"}", Auto, `line 2: a jsonl {speaker,text} line among openai messages`},
		{"mixed jsonl 2", "{\"speaker\":\"Maya\",\"text\":\"b\"}\n{\"role\":\"user\",\"content\":\"a\"}", Auto, `line 2: an openai {role,content} message among jsonl`},
		{"content object", `[{"role":"user","content":{"a":1}}]`, Auto, `messages[0].content: want a string or a list of parts, got an object`},
		{"anthropic unknown role", `{"system":"s","messages":[{"role":"tool","content":"x"}]}`, Anthropic, `messages[0].role: "tool" is not an Anthropic message role`},
		{"anthropic text without text", `{"messages":[{"role":"user","content":[{"type":"text"}]}]}`, Anthropic, `messages[0].content[0].text: missing`},
		{"anthropic result in a system message", `{"messages":[{"role":"user","content":"q"},{"role":"system","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}]}`, Anthropic, `messages[1].content[0]: a tool_result block in a message of role system`},
		{"anthropic orphan", `{"system":"s","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}]}`, Auto, `messages[0].content[0].tool_use_id: "t" answers no tool call`},
		{"tool use by user", `{"system":"s","messages":[{"role":"user","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}]}`, Auto, `messages[0].content[0]: a tool_use block in a user message`},
		{"duplicate call id", `[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c","type":"function","function":{"name":"g","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"x"}]`, Auto, `messages[0].tool_calls[1].id: "c" is used by an earlier call of the same message`},
		{"result of an earlier turn's call", `[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"x"},{"role":"assistant","tool_calls":[{"id":"b","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"x"}]`, Auto, `messages[3].tool_call_id: "a" answers no tool call of the assistant message before it`},
		{"jsonl missing text", `{"speaker":"Maya","time":"2024-05-07T14:00:00Z"}`, Auto, `line 1.text: missing`},
		{"locomo", `[{"sample_id":"x","conversation":{}}]`, Auto, "locomo input holds conversations"},
		{"bad json line", "{\"role\":\"user\",\"content\":\"a\"}\n{nope", Auto, "line 2: not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in), tc.f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			if swc.ErrorCode(err) != swc.EINVALID {
				t.Errorf("code %s, want invalid", swc.ErrorCode(err))
			}
		})
	}
}

// TestCallIDsPerTurn: a result answers the calls of the assistant message
// before it, so an id every turn reuses ("call_0", as many local models
// send) is fine in both formats.
func TestCallIDsPerTurn(t *testing.T) {
	turn := `{"role":"assistant","tool_calls":[{"id":"call_0","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_0","content":"r"}`
	in, err := Parse([]byte(`[{"role":"user","content":"q"},`+turn+`,{"role":"user","content":"again"},`+turn+`]`), OpenAI)
	if err != nil || len(in.Messages) != 6 {
		t.Fatalf("openai: %v", err)
	}
	use := `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_0","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_0","content":"r"}]}`
	if _, err := Parse([]byte(`{"messages":[{"role":"user","content":"q"},`+use+`,{"role":"assistant","content":"ok"},{"role":"user","content":"again"},`+use+`]}`), Anthropic); err != nil {
		t.Fatalf("anthropic: %v", err)
	}
	// Parallel calls named alike every turn, their results in another
	// order than the calls: each result pairs with its own turn's call.
	call := func(id, arg string) string {
		return `{"type":"function_call","call_id":"` + id + `","name":"f","arguments":"{\"n\":` + arg + `}"}`
	}
	out := func(id, text string) string {
		return `{"type":"function_call_output","call_id":"` + id + `","output":"` + text + `"}`
	}
	body := `{"input":[{"role":"user","content":"q"},` +
		call("call_0", "1") + `,` + call("call_1", "2") + `,` + out("call_1", "r2") + `,` + out("call_0", "r1") + `,` +
		call("call_0", "3") + `,` + call("call_1", "4") + `,` + out("call_0", "r3") + `,` + out("call_1", "r4") + `]}`
	in, err = Parse([]byte(body), Responses)
	if err != nil {
		t.Fatalf("responses: %v", err)
	}
	var got []string
	for i, m := range in.Messages {
		if m.Role == swc.RoleTool {
			a := in.Messages[i-1]
			for j := i - 1; a.Role == swc.RoleTool; j-- {
				a = in.Messages[j]
			}
			for _, tc := range a.ToolCalls {
				if tc.ID == m.ToolCallID {
					got = append(got, tc.Arguments+"→"+m.Content)
				}
			}
		}
	}
	if want := []string{`{"n":2}→r2`, `{"n":1}→r1`, `{"n":3}→r3`, `{"n":4}→r4`}; !slices.Equal(got, want) {
		t.Errorf("responses: pairs %q, want %q", got, want)
	}
	// A call nothing answers is a message of its own (TestParseResponsesLenient),
	// though an earlier turn's output has its id.
	in, err = Parse([]byte(`{"input":[{"role":"user","content":"q"},`+call("call_0", "1")+`,`+out("call_0", "r1")+`,`+
		call("call_0", "2")+`,{"role":"user","content":"stop"}]}`), Responses)
	if err != nil {
		t.Fatalf("responses, a call left unanswered: %v", err)
	}
	if n := len(in.Messages); n != 5 || len(in.Messages[3].ToolCalls) != 0 {
		t.Errorf("responses, a call left unanswered: messages %+v", in.Messages)
	}
}

// TestParseBatch: a batch of a stored conversation may end on a call, or
// start with the result of a call appended before; each message is still
// checked alone.
func TestParseBatch(t *testing.T) {
	for _, tc := range []struct{ name, in, err string }{
		{"ends on a call", `[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]`, ""},
		{"starts with a result", `[{"role":"tool","tool_call_id":"c","content":"r"}]`, ""},
		{"a result naming no call", `[{"role":"tool","content":"r"}]`, "messages[0].tool_call_id: missing on a tool message"},
		{"a call without id", `[{"role":"assistant","tool_calls":[{"id":"","type":"function","function":{"name":"f","arguments":"{}"}}]}]`, "messages[0].tool_calls[0].id: missing"},
		{"anthropic result", `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBatch([]byte(tc.in), Auto)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

// TestHasPlaceholder: the Content of an assistant message with a block
// that is not text (a thinking block, a Gemini thought, an image) holds a
// placeholder line, so that memory does not rewrite it; plain text, and
// text with brackets that are not a whole placeholder line, do not.
func TestHasPlaceholder(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		body   string
		want   bool
	}{
		{"anthropic thinking block", Anthropic, `{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"Done."}]}]}`, true},
		{"anthropic redacted thinking", Anthropic, `{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"redacted_thinking","data":"x"},{"type":"text","text":"Done."}]}]}`, true},
		{"anthropic text blocks", Anthropic, `{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"text","text":"Done."},{"type":"text","text":"See a[0] and [x](y)."}]}]}`, false},
		{"anthropic text string", Anthropic, `{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":"Done.\n[1, 2]"}]}`, false},
		{"gemini thought part", Gemini, `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"text":"hm","thought":true},{"text":"Done."}]}]}`, true},
		{"gemini image part of a model turn", Gemini, `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"text":"Here it is."},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]}]}`, true},
		{"gemini file part of a model turn", Gemini, `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"text":"Here it is."},{"fileData":{"mimeType":"application/vnd.ms-excel","fileUri":"gs://b/x"}}]}]}`, true},
		{"openai image part", OpenAI, `[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"text","text":"Done."},{"type":"image_url","image_url":{"url":"x"}}]}]`, true},
		{"openai text", OpenAI, `[{"role":"user","content":"go"},{"role":"assistant","content":"Done."}]`, false},
	}
	for _, tc := range cases {
		in, err := Parse([]byte(tc.body), tc.format)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		m := in.Messages[len(in.Messages)-1]
		if m.Role != swc.RoleAssistant {
			t.Fatalf("%s: the last message is a %s message", tc.name, m.Role)
		}
		if got := HasPlaceholder(m.Content); got != tc.want {
			t.Errorf("%s: HasPlaceholder(%q) = %v, want %v", tc.name, m.Content, got, tc.want)
		}
	}
}
