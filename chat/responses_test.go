package chat

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/rawjson"
	"github.com/swcmem/swc/tokens"
)

// agentInput is a Responses request as agents send one: instructions,
// items of every kind swc reads, and fields it must not touch.
const agentInput = `{"model":"gpt-5","instructions":"Be brief.","store":false,"x_unknown":{"a":[1,2]},
 "input":[
  {"type":"compaction","id":"cmp_1","encrypted_content":"gAAA=="},
  {"role":"user","content":"Weather in Lisbon and Porto?"},
  {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"two cities"}],"encrypted_content":"xx"},
  {"type":"function_call","id":"fc_1","call_id":"call_a","name":"weather","arguments":"{\"city\":\"Lisbon\"}"},
  {"type":"function_call","id":"fc_2","call_id":"call_b","name":"weather","arguments":"{\"city\":\"Porto\"}"},
  {"type":"function_call_output","call_id":"call_b","output":"rain"},
  {"type":"function_call_output","call_id":"call_a","output":[{"type":"input_text","text":"sun"}]},
  {"type":"reasoning","id":"rs_2","summary":[]},
  {"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Lisbon sun, Porto rain.","annotations":[]}]},
  {"type":"message","role":"user","content":[{"type":"input_text","text":"And this photo?"},{"type":"input_image","image_url":"https://example.com/a.png","detail":"low"}]},
  {"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"photo"}},
  {"type":"brand_new_item","x":1},
  {"type":"custom_tool_call","call_id":"call_c","name":"apply_patch","input":"*** Begin Patch"},
  {"type":"custom_tool_call_output","call_id":"call_c","output":"done"},
  {"type":"compaction_trigger"}
 ],
 "tools":[{"type":"function","name":"weather"}]}`

func TestParseResponses(t *testing.T) {
	in, err := Parse([]byte(agentInput), Responses)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		role    swc.Role
		content string
		calls   []string // call ids
		answers string
		where   string
		raw     string // the first and last item type of its unit
		media   int
	}
	wants := []want{
		{role: swc.RoleSystem, content: "Be brief.", where: "instructions"},
		{role: swc.RoleDeveloper, content: "[compaction]", where: "input[0]", raw: "compaction"},
		{role: swc.RoleUser, content: "Weather in Lisbon and Porto?", where: "input[1]", raw: "Weather"},
		{role: swc.RoleAssistant, calls: []string{"call_a", "call_b"}, where: "input[3]", raw: "reasoning…fc_2"},
		{role: swc.RoleTool, content: "rain", answers: "call_b", where: "input[5]", raw: "call_b"},
		{role: swc.RoleTool, content: "sun", answers: "call_a", where: "input[6]", raw: "call_a"},
		{role: swc.RoleAssistant, content: "Lisbon sun, Porto rain.", where: "input[8]", raw: "reasoning…msg_1"},
		{role: swc.RoleUser, content: "And this photo?\n[input_image]", where: "input[9]", raw: "photo", media: 85},
		{role: swc.RoleAssistant, content: `[web_search_call] {"type":"search","query":"photo"}`, where: "input[10]", raw: "ws_1…brand_new_item"},
		{role: swc.RoleAssistant, calls: []string{"call_c"}, where: "input[12]", raw: "call_c"},
		{role: swc.RoleTool, content: "done", answers: "call_c", where: "input[13]", raw: "call_c…compaction_trigger"},
	}
	if len(in.Messages) != len(wants) {
		for i, m := range in.Messages {
			t.Logf("%d %s %q %v", i, m.Role, m.Content, m.ToolCalls)
		}
		t.Fatalf("%d messages, want %d", len(in.Messages), len(wants))
	}
	for i, w := range wants {
		m := in.Messages[i]
		var calls []string
		for _, tc := range m.ToolCalls {
			calls = append(calls, tc.ID)
		}
		if m.Role != w.role || m.Content != w.content || strings.Join(calls, ",") != strings.Join(w.calls, ",") ||
			m.ToolCallID != w.answers || in.Where[i] != w.where || m.MediaTokens != w.media {
			t.Errorf("message %d = %s %q calls %v answers %q at %s media %d; want %+v", i, m.Role, m.Content, calls, m.ToolCallID, in.Where[i], m.MediaTokens, w)
		}
		if w.raw == "" {
			if in.Origin[i] != -1 {
				t.Errorf("message %d: origin %d, want -1 (the instructions field)", i, in.Origin[i])
			}
			continue
		}
		raw := string(in.Raw[in.Origin[i]])
		first, last, _ := strings.Cut(w.raw, "…")
		if !strings.Contains(raw, first) || !strings.Contains(raw, last) {
			t.Errorf("message %d's items %s; want from %q to %q", i, raw, first, last)
		}
	}
	if tc := in.Messages[3].ToolCalls[1]; tc.Name != "weather" || tc.Arguments != `{"city":"Porto"}` {
		t.Errorf("second call %+v", tc)
	}
	if tc := in.Messages[9].ToolCalls[0]; tc.Name != "apply_patch" || tc.Arguments != "*** Begin Patch" {
		t.Errorf("custom tool call %+v", tc)
	}
	// The units cover the input array exactly: written back in order
	// they give the same items.
	var all [][]byte
	for _, r := range in.Raw {
		all = append(all, r)
	}
	input := in.Request[in.Span[0]:in.Span[1]]
	if got := "[" + string(bytes.Join(all, []byte(","))) + "]"; compactJSON(t, got) != compactJSON(t, string(input)) {
		t.Errorf("units do not cover the input:\n%s\n%s", got, input)
	}
	if string(in.Body["x_unknown"]) != `{"a":[1,2]}` || string(in.Body["store"]) != "false" {
		t.Errorf("body fields %s %s", in.Body["x_unknown"], in.Body["store"])
	}
}

func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := jsonCompact(&b, []byte(s)); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return b.String()
}

func TestParseResponsesStringInput(t *testing.T) {
	in, err := Parse([]byte(`{"model":"gpt-5","input":"hello"}`), Responses)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Messages) != 1 || in.Messages[0].Role != swc.RoleUser || in.Messages[0].Content != "hello" {
		t.Fatalf("messages %+v", in.Messages)
	}
	if string(in.Request[in.Span[0]:in.Span[1]]) != `"hello"` || string(in.Raw[0]) != `{"role":"user","content":"hello"}` {
		t.Errorf("span %s raw %s", in.Request[in.Span[0]:in.Span[1]], in.Raw[0])
	}
}

func TestParseResponsesErrors(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`[1]`, "a responses request is a JSON object"},
		{`{"model":"m"}`, `request body has no "input"`},
		{`{"input":3}`, "input: want a string or a list of items, got a number"},
		{`{"input":[3]}`, "input[0]: want an item object, got a number"},
		{`{"input":"a","input":"b"}`, `"input" appears twice`},
		{`{"input":"a","input":[{"role":"user","content":"x"}]}`, `"input" appears twice`},
		{`{"input":[{"role":"user","content":"x"}],"input":"a"}`, `"input" appears twice`},
		{`{"input":[{"role":"user","content":"x"}],"input":[]}`, `"input" appears twice`},
		{`{"input":[{"role":"user","content":"x"},]}`, "body:"},
		{`{"input":[{"role":"user","content":"x"}`, "body:"},
		{`{"input":"a","instructions":["x"]}`, "instructions: want a string, got an array"},
		{`{"input":[{"type":"message","content":"x"}]}`, "input[0].role: missing"},
		{`{"input":[{"role":"robot","content":"x"}]}`, `input[0].role: unknown role "robot"`},
		{`{"input":[{"role":"user","content":7}]}`, "input[0].content: want a string or a list of parts"},
		{`{"input":[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"role":"user","content":"x"},{"type":"function_call_output","call_id":"c","output":"y"}]}`,
			`input[0]: function_call "c" is answered only after input[1] (message)`},
		{`{"input":[{"type":"item_reference","id":"msg_1"}]}`, "input[0]: an item_reference names an item stored at the provider"},
		{`{"input":"x","previous_response_id":"resp_1"}`, "previous_response_id: the history is stored at the provider"},
		{`{"input":"x","conversation":{"id":"conv_1"}}`, "conversation: the history is stored at the provider"},
		{`{"input":[{"type":"reasoning","id":"rs"}]}`, "input: no message, only reasoning items"},
		{`{"input":[]}`, "input: no items"},
		{`{"input":[{"role":"user","content":"x"}]} {}`, "more than one JSON value"},
		{`{"input":[{"role":"user","content":"x"}]`, "body:"},
	} {
		_, err := Parse([]byte(tt.body), Responses)
		if err == nil || !strings.Contains(err.Error(), tt.want) || swc.ErrorCode(err) != swc.EINVALID {
			t.Errorf("Parse(%s) = %v; want EINVALID containing %q", tt.body, err, tt.want)
		}
	}
}

func TestParseResponsesLenient(t *testing.T) {
	// What the API accepts, swc reads: an output nothing here calls (it
	// goes with the item before), a call nothing answers (a message of its
	// own), unknown part types.
	in, err := Parse([]byte(`{"input":[{"role":"user","content":[{"type":"input_audio","input_audio":{}}]},
		{"type":"function_call_output","call_id":"gone","output":"x"},
		{"type":"shell_call","call_id":"s1","action":{"commands":["ls"]}},
		{"role":"assistant","content":"ok"}]}`), Responses)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Messages) != 3 || in.Messages[0].Content != "[input_audio]" || len(in.Messages[1].ToolCalls) != 0 ||
		in.Messages[1].Content != `[shell_call] {"commands":["ls"]}` {
		t.Fatalf("messages %+v", in.Messages)
	}
	if !bytes.Contains(in.Raw[0], []byte(`"gone"`)) {
		t.Errorf("the orphan output is not kept with the item before it: %s", in.Raw[0])
	}
}

func TestProviderHistory(t *testing.T) {
	for body, want := range map[string]string{
		`{"input":"x","previous_response_id":"resp_1"}`:                  "previous_response_id",
		`{"input":"x","previous_response_id":null}`:                      "",
		`{"input":"x","conversation":{"id":"conv_1"}}`:                   "conversation",
		`{"input":"x","conversation":"conv_1"}`:                          "conversation",
		`{"input":[{"type":"item_reference","id":"msg_1"}]}`:             "item_reference",
		`{"input":[{"role":"user","content":"say \"item_reference\""}]}`: "",
		`{"model":"m","prompt":{"id":"pmpt_1"}}`:                         "no input",
		`{"input":"x"}`:                                                  "",
		`not json`:                                                       "",
	} {
		if got := ProviderHistory([]byte(body)); got != want {
			t.Errorf("ProviderHistory(%s) = %q, want %q", body, got, want)
		}
	}
}

func TestImageTokens(t *testing.T) {
	pngURL := func(w, h int) string {
		var b bytes.Buffer
		png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)))
		return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
	}
	for _, tt := range []struct {
		url, detail string
		want        int
	}{
		{"https://example.com/x.png", "low", 85},
		{"https://example.com/x.png", "high", 765}, // 1024² assumed: 768² → 4 tiles
		{"https://example.com/x.png", "", 765},
		{pngURL(100, 100), "auto", 255},         // one tile
		{pngURL(1000, 1000), "high", 765},       // 768² → 4 tiles
		{pngURL(4096, 2048), "high", 1105},      // 2048×1024 → 1536×768 → 3×2 tiles
		{pngURL(512, 2000), "high", 85 + 4*170}, // no scaling: 1×4 tiles
		{"data:image/png;base64,!!!", "high", 765},
	} {
		if got := ImageTokens(tt.url, tt.detail); got != tt.want {
			t.Errorf("ImageTokens(%.40s, %q) = %d, want %d", tt.url, tt.detail, got, tt.want)
		}
	}
}

func jsonCompact(dst *bytes.Buffer, src []byte) error { return json.Compact(dst, src) }

func TestResponsesInputRoundTrip(t *testing.T) {
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "Be brief."},
		{Role: swc.RoleUser, Content: "Weather?"},
		{Role: swc.RoleAssistant, Content: "Checking.", ToolCalls: []swc.ToolCall{{ID: "c1", Name: "weather", Arguments: `{"city":"Lisbon"}`}, {ID: "c2", Name: "weather"}}},
		{Role: swc.RoleTool, ToolCallID: "c1", Content: "sun"},
		{Role: swc.RoleTool, ToolCallID: "c2", Content: "rain"},
		{Role: swc.RoleAssistant, Content: "Sun and rain."},
	}
	instr, items := ResponsesInput(msgs)
	b, _ := json.Marshal(map[string]any{"instructions": instr, "input": items})
	in, err := Parse(b, Responses)
	if err != nil {
		t.Fatal(err)
	}
	// The assistant text and its calls are two items, read back as one
	// turn: the calls right after a message item join it.
	want := []string{"system:Be brief.", "user:Weather?", "assistant:Checking.+c1,c2", "tool:sun", "tool:rain", "assistant:Sun and rain."}
	var got []string
	for _, m := range in.Messages {
		s := string(m.Role) + ":" + m.Content
		if len(m.ToolCalls) > 0 {
			s += "+" + m.ToolCalls[0].ID + "," + m.ToolCalls[1].ID
		}
		got = append(got, s)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("round trip\n got %v\nwant %v", got, want)
	}
}

// FuzzProviderHistoryParse: a Responses body Parse reads has its whole
// history in its input (ProviderHistory ""), so the proxy asks
// ProviderHistory only of a body Parse refuses.
func FuzzProviderHistoryParse(f *testing.F) {
	for _, s := range []string{
		`{"model":"gpt-5","input":[{"role":"user","content":"hi"}]}`,
		`{"model":"gpt-5","input":"hi"}`,
		`{"model":"gpt-5","previous_response_id":"resp_1","input":[{"role":"user","content":"hi"}]}`,
		`{"model":"gpt-5","previous_response_id":null,"input":[{"role":"user","content":"hi"}]}`,
		`{"model":"gpt-5","previous\u005fresponse_id":"resp_1","input":"hi"}`,
		`{"model":"gpt-5","conversation":"","input":"hi"}`,
		`{"model":"gpt-5","conversation":{"id":"conv_1"},"input":"hi"}`,
		`{"model":"gpt-5","input":[{"type":"item_reference","id":"msg_1"},{"role":"user","content":"hi"}]}`,
		`{"model":"gpt-5","input":[{"TYPE":"item_reference","id":"msg_1"}]}`,
		`{"model":"gpt-5","input":null}`,
		`{"model":"gpt-5"}`,
		`{"model":"gpt-5","input":"a","input":"b"}`,
		`{"model":"gpt-5","conversation":"c","conversation":null,"input":"hi"}`,
		`{"input":[{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, err := Parse(body, Responses); err == nil {
			if why := ProviderHistory(body); why != "" {
				t.Errorf("Parse reads %s, whose history ProviderHistory says is the provider's (%s)", body, why)
			}
		}
	})
}

// TestResponsesReasoningTokens: a reasoning item after the input's last
// user message counts its encrypted content's bytes over
// EncryptedBytesPerToken and its reasoning_text parts' tokens, in the
// message it goes with; one before that message, and a summary, count
// nothing; the fast read and encoding/json's agree.
func TestResponsesReasoningTokens(t *testing.T) {
	enc := func(n int) string { return strings.Repeat("A", n) }
	body := `{"model":"gpt-5","input":[
  {"role":"user","content":"Fix the test."},
  {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"` + strings.Repeat("plan ", 200) + `"}],"encrypted_content":"` + enc(2000) + `"},
  {"type":"function_call","id":"fc_1","call_id":"c1","name":"shell","arguments":"{}"},
  {"type":"function_call_output","call_id":"c1","output":"ok"},
  {"type":"message","role":"user","content":[{"type":"input_text","text":"Now the docs."}]},
  {"type":"reasoning","id":"rs_2","summary":[],"encrypted_content":"` + enc(3000) + `"},
  {"type":"function_call","id":"fc_2","call_id":"c2","name":"shell","arguments":"{}"},
  {"type":"function_call_output","call_id":"c2","output":"ok"},
  {"type":"reasoning","id":"rs_3","summary":[],"content":[{"type":"reasoning_text","text":"Read the docs folder first."}]},
  {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]},
  {"type":"reasoning","id":"rs_4","encrypted_content":"` + enc(505) + `"}
 ]}`
	defer func() { rawjson.Fast = true }()
	for _, fast := range []bool{true, true, false} { // the second time from itemMemo
		rawjson.Fast = fast
		in, err := Parse([]byte(body), Responses)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, m := range in.Messages {
			got = append(got, m.ReasoningTokens)
		}
		// user, call (rs_1: before the last user message), output, user,
		// call (rs_2), output, message (rs_3's text, rs_4 going back).
		text := tokens.Count("Read the docs folder first.")
		want := []int{0, 0, 0, 0, 3000 / EncryptedBytesPerToken, 0, text + 505/EncryptedBytesPerToken}
		if !slices.Equal(got, want) {
			t.Errorf("fast %v: reasoning tokens %v, want %v", fast, got, want)
		}
	}
}
