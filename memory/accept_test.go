package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/swcmem/swc/internal/wiretest"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// The shapes the providers accept, through parse → compress → splice:
// every message the compressed request keeps is the request's own bytes
// (an Anthropic message whose tool results went into the memory loses
// only its tool_result blocks), in the request's order, and every field
// outside the messages is as it came.

// filler is a user or assistant text of about 60 tokens, different for
// each i.
func filler(i int) string {
	return fmt.Sprintf("Turn %d: we went over the deployment of service %d, the flaky test in pkg/x%d and the cache settings again, and agreed to look at the logs of night %d before the next review.", i, i*7, i, i)
}

// turns returns n JSON messages built by turn, joined by commas.
func turns(n int, turn func(i int) string) string {
	var b []string
	for i := range n {
		b = append(b, turn(i))
	}
	return strings.Join(b, ",")
}

func jstr(s string) string { b, _ := json.Marshal(s); return string(b) }

// fill writes text (as a JSON string) for {text} and i for {i} in shape.
func fill(shape, text string, i int) string {
	return strings.NewReplacer("{text}", jstr(text), "{i}", fmt.Sprint(i)).Replace(shape)
}

// anthropicShapes: a block of each type where Claude Code and the API put
// it, in every turn of a long conversation.
var anthropicShapes = []struct{ name, assistant, user, result string }{
	{name: "thinking", assistant: `{"type":"thinking","thinking":"Let me think.","signature":"EqQBCkYIBxgCKkD"}`},
	{name: "redacted_thinking", assistant: `{"type":"redacted_thinking","data":"EmwKAhgBEgy"}`},
	{name: "server_tool_use", assistant: `{"type":"server_tool_use","id":"srvtoolu_{i}","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_{i}","content":[{"type":"web_search_result","url":"https://go.dev","title":"Go","encrypted_content":"Eq"}]}`},
	{name: "mcp", assistant: `{"type":"mcp_tool_use","id":"mcptoolu_{i}","name":"read","server_name":"fs","input":{}},{"type":"mcp_tool_result","tool_use_id":"mcptoolu_{i}","is_error":false,"content":[{"type":"text","text":"x"}]}`},
	{name: "image", user: `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}`},
	{name: "document", user: `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes"},"citations":{"enabled":true}}`},
	{name: "search_result", user: `{"type":"search_result","source":"kb","title":"t","content":[{"type":"text","text":"r"}]}`},
	{name: "container_upload", user: `{"type":"container_upload","file_id":"file_1"}`},
	{name: "future block", user: `{"type":"hologram","text":{"not":"a string"},"id":7,"is_error":"maybe"}`},
	{name: "cache_control text after results", user: `{"type":"text","text":"<system-reminder>x</system-reminder>","cache_control":{"type":"ephemeral"}}`},
	{name: "image in a tool result", result: `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}`},
	{name: "document in a tool result", result: `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"d"}}`},
	{name: "search_result in a tool result", result: `{"type":"search_result","source":"s","title":"t","content":[{"type":"text","text":"r"}]}`},
}

// anthropicTurns writes n turns: a user message, a mid-conversation
// system message every fifth turn, an assistant message with a tool call
// and the shape's assistant blocks, the user message with the result (the
// shape's result blocks in it) and the shape's user blocks after it.
func anthropicTurns(n int, assistant, user, result string) string {
	return turns(n, func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, `{"role":"user","content":[{"type":"text","text":%s}]},`, jstr(filler(i)))
		if i%5 == 1 {
			fmt.Fprintf(&b, `{"role":"system","content":%s},`, jstr(fmt.Sprintf("<system-reminder>reminder %d</system-reminder>", i)))
		}
		blocks := []string{}
		if assistant != "" {
			blocks = append(blocks, fill(assistant, "", i))
		}
		blocks = append(blocks, fmt.Sprintf(`{"type":"text","text":%s},{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"ls"}}`, jstr(filler(i+100)), i))
		fmt.Fprintf(&b, `{"role":"assistant","content":[%s]},`, strings.Join(blocks, ","))
		content := jstr(filler(i + 200))
		if result != "" {
			content = fmt.Sprintf(`[{"type":"text","text":%s},%s]`, content, result)
		}
		ublocks := []string{fmt.Sprintf(`{"type":"tool_result","tool_use_id":"toolu_%d","content":%s}`, i, content)}
		if user != "" {
			ublocks = append(ublocks, user)
		}
		ublocks = append(ublocks, `{"type":"text","text":"go on"}`)
		fmt.Fprintf(&b, `{"role":"user","content":[%s]},{"role":"assistant","content":"ok"}`, strings.Join(ublocks, ","))
		return b.String()
	})
}

// topFields are fields outside the messages a request may carry, unknown
// ones among them: they must reach the provider byte for byte.
const topFields = `"model":"m","max_tokens":64,"stream":true,"thinking":{"type":"enabled","budget_tokens":1024},"future_field":{"a":[1,2,{"b":null}]},"tools":[{"name":"Bash","input_schema":{"type":"object"}}]`

func TestAcceptAnthropicShapes(t *testing.T) {
	var all stats
	defer func() {
		// The shapes between them keep a mid-conversation system message
		// in place and a message without its tool results.
		if !t.Failed() && (all.inPlace == 0 || all.stripped == 0) {
			t.Errorf("no shape kept a mid-conversation system message (%d) or a message without its tool results (%d)", all.inPlace, all.stripped)
		}
	}()
	for _, sh := range anthropicShapes {
		t.Run(sh.name, func(t *testing.T) {
			body := []byte(`{` + topFields + `,"system":"You are terse.","messages":[` + anthropicTurns(24, sh.assistant, sh.user, sh.result) + `]}`)
			st := roundTrip(t, body, chat.Anthropic)
			t.Logf("kept %d source messages (%d without their tool results), %d mid-conversation system messages", st.kept, st.stripped, st.inPlace)
			all.inPlace += st.inPlace
			all.stripped += st.stripped
		})
	}
}

// openAIShapes: parts and messages the Chat Completions API accepts.
var openAIShapes = []struct{ name, user, assistant, tool string }{
	{name: "input_audio", user: `[{"type":"text","text":{text}},{"type":"input_audio","input_audio":{"data":"AA==","format":"wav"}}]`},
	{name: "file", user: `[{"type":"text","text":{text}},{"type":"file","file":{"file_id":"file-1","filename":"a.pdf"}}]`},
	{name: "image_url", user: `[{"type":"text","text":{text}},{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"low"}}]`},
	{name: "future part", user: `[{"type":"text","text":{text}},{"type":"hologram","text":{"x":1},"refusal":5}]`},
	{name: "refusal part", assistant: `{"role":"assistant","content":[{"type":"refusal","refusal":{text}}]}`},
	{name: "null content with tool calls", assistant: `{"role":"assistant","content":null,"tool_calls":[{"id":"call_{i}","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_{i}","content":{text}}`},
	{name: "custom tool call, parts result", assistant: `{"role":"assistant","content":null,"tool_calls":[{"id":"call_{i}","type":"custom","custom":{"name":"apply","input":"x"}}]}`, tool: `{"role":"tool","tool_call_id":"call_{i}","content":[{"type":"text","text":{text}}]}`},
	{name: "audio and mid-conversation system", assistant: `{"role":"assistant","content":{text},"audio":{"id":"audio_1"}},{"role":"system","content":"reminder"}`},
}

func TestAcceptOpenAIShapes(t *testing.T) {
	for _, sh := range openAIShapes {
		t.Run(sh.name, func(t *testing.T) {
			msgs := turns(30, func(i int) string {
				user := jstr(filler(i))
				if sh.user != "" {
					user = fill(sh.user, filler(i), i)
				}
				assistant := fmt.Sprintf(`{"role":"assistant","content":%s}`, jstr(filler(i+100)))
				if sh.assistant != "" {
					assistant = fill(sh.assistant, filler(i+100), i)
				}
				if sh.tool != "" {
					assistant += "," + fill(sh.tool, filler(i+200), i)
				}
				return fmt.Sprintf(`{"role":"user","content":%s},%s`, user, assistant)
			})
			body := []byte(`{"model":"gpt-5","future_field":{"a":1},"tools":[{"type":"function","function":{"name":"f"}}],"messages":[{"role":"developer","content":"Be terse."},` + msgs + `]}`)
			roundTrip(t, body, chat.OpenAI)
		})
	}
}

// responsesShapes: items the Responses API accepts, in every turn.
var responsesShapes = []struct{ name, items string }{
	{"reasoning", `{"type":"reasoning","id":"rs_{i}","summary":[],"encrypted_content":"gAAAAB"}`},
	{"web_search_call", `{"type":"web_search_call","id":"ws_{i}","status":"completed","action":{"type":"search","query":"q"}}`},
	{"computer_call", `{"type":"computer_call","id":"cu_{i}","call_id":"call_c{i}","action":{"type":"click","x":1,"y":2},"pending_safety_checks":[],"status":"completed"},{"type":"computer_call_output","call_id":"call_c{i}","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,AA=="}}`},
	{"local_shell_call", `{"type":"local_shell_call","id":"lsh_{i}","call_id":"call_l{i}","action":{"type":"exec","command":["ls"]},"status":"completed"},{"type":"local_shell_call_output","id":"lsh_{i}","call_id":"call_l{i}","output":"a.go"}`},
	{"mcp", `{"type":"mcp_list_tools","id":"mcpl_{i}","server_label":"fs","tools":[]},{"type":"mcp_call","id":"mcp_{i}","server_label":"fs","name":"read","arguments":"{}","output":"x"}`},
	{"custom_tool_call", `{"type":"custom_tool_call","id":"ctc_{i}","call_id":"call_x{i}","name":"apply","input":"patch"},{"type":"custom_tool_call_output","call_id":"call_x{i}","output":"done"}`},
	{"future item", `{"type":"hologram","id":{"odd":true},"name":5,"input":{"x":1},"output":[1,2]}`},
}

func TestAcceptResponsesShapes(t *testing.T) {
	for _, sh := range responsesShapes {
		t.Run(sh.name, func(t *testing.T) {
			items := turns(30, func(i int) string {
				return fmt.Sprintf(`{"role":"user","content":[{"type":"input_text","text":%s}]},%s,{"type":"message","role":"assistant","id":"msg_%d","content":[{"type":"output_text","text":%s,"annotations":[]}]}`,
					jstr(filler(i)), fill(sh.items, "", i), i, jstr(filler(i+100)))
			})
			body := []byte(`{"model":"gpt-5","instructions":"Be terse.","store":false,"include":["reasoning.encrypted_content"],"tools":[{"type":"web_search"}],"input":[` + items + `]}`)
			roundTrip(t, body, chat.Responses)
		})
	}
}

// roundTrip parses body, checks that a budget it fits sends it as it
// came, then compresses it to a budget it does not fit and checks the
// spliced request: it parses, is within the budget, keeps every field
// outside the messages byte for byte, and every message (item) it keeps
// is one of the request's, byte for byte, in order.
func roundTrip(t *testing.T, body []byte, f chat.Format) stats {
	t.Helper()
	in, err := chat.Parse(body, f)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	o := DefaultOptions()
	o.Budget = 1 << 20
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if f == chat.Anthropic {
		c = c.WithAlignUser()
	}
	res, err := c.Compress(context.Background(), in.Messages)
	if err != nil || !res.Fits {
		t.Fatalf("a budget it fits: fits %v, %v", res != nil && res.Fits, err)
	}
	o.Budget, o.KeepRecent = 1500, 6
	if c, err = New(o); err != nil {
		t.Fatal(err)
	}
	if f == chat.Anthropic {
		c = c.WithAlignUser()
	}
	if res, err = c.Compress(context.Background(), in.Messages); err != nil {
		t.Fatalf("compress: %v", err)
	}
	if res.Fits || res.Memory == "" {
		t.Fatalf("not compressed (fits %v)", res.Fits)
	}
	out, err := SpliceRequest(in, res)
	if err != nil {
		t.Fatalf("splice: %v", err)
	}
	back, err := chat.Parse(out, f)
	if err != nil {
		t.Fatalf("the spliced request does not parse: %v\n%.600s", err, out)
	}
	if n := c.CountMessages(back.Messages); n > o.Budget || res.OverBudget != 0 {
		t.Errorf("spliced request holds %d tokens; budget %d, Result.OverBudget %d", n, o.Budget, res.OverBudget)
	}
	list := "messages"
	if f == chat.Responses {
		list = "input"
	}
	var a, b map[string]json.RawMessage
	json.Unmarshal(body, &a)
	json.Unmarshal(out, &b)
	for k, v := range a {
		if k == list || k == "system" && f == chat.Anthropic {
			continue
		}
		if !bytes.Equal(v, b[k]) && !(k == "thinking" && f == chat.Anthropic && wiretest.DropBlockAdded(b[k], v)) {
			t.Errorf("field %q: %s; sent %s", k, b[k], v)
		}
	}
	// Each message sent: a source message as it came (or, for Anthropic,
	// without its tool_result blocks), in order; else the memory message
	// (a tool loop's lists its dropped calls).
	var sent []json.RawMessage
	json.Unmarshal(b[list], &sent)
	var src []json.RawMessage
	if f == chat.Responses {
		json.Unmarshal(a[list], &src)
	} else {
		src = in.Raw
	}
	// Instructions go first (OpenAI's system and developer messages, a
	// mid-conversation one among them; Anthropic's stay in place).
	instr := map[string]bool{}
	for k, m := range in.Messages {
		if chat.IsInstruction(m) && in.Origin[k] >= 0 && f != chat.Responses {
			instr[string(in.Raw[in.Origin[k]])] = true
		}
	}
	next, memory, kept, stripped := 0, 0, 0, 0
	for _, m := range sent {
		if instr[string(m)] {
			kept++
			continue
		}
		found := false
		for j := next; j < len(src) && !found; j++ {
			if bytes.Equal(m, src[j]) {
				found, next = true, j+1
				continue
			}
			if w, ok := chat.WithoutToolResults(src[j]); f == chat.Anthropic && ok && bytes.Equal(m, w) {
				found, next = true, j+1
				stripped++
			}
		}
		switch {
		case found:
			kept++
		case bytes.Contains(m, []byte(Preamble[:20])), bytes.Contains(m, []byte(LoopPreamble[:20])):
			memory++
		default:
			t.Errorf("sent a message that is none of the request's: %.300s", m)
		}
	}
	if kept == 0 || memory > 1 {
		t.Errorf("kept %d messages, %d memory messages", kept, memory)
	}
	if last := src[len(src)-1]; next == 0 || !instr[string(last)] && !bytes.Equal(sent[len(sent)-1], last) {
		t.Errorf("the last message is not the request's last")
	}
	st := stats{kept: kept, stripped: stripped}
	for _, m := range sent {
		if bytes.HasPrefix(m, []byte(`{"role":"system"`)) && !instr[string(m)] {
			st.inPlace++
		}
	}
	return st
}

// stats says what a compressed request kept: source messages, those of
// them without their tool results, and mid-conversation system messages.
type stats struct{ kept, stripped, inPlace int }

// TestAcceptResponsesLoopOutputs: a computer-use and shell loop over
// budget. A stub goes only where the item's output may hold it: a
// screenshot (media alone) is never stubbed, a computer_call_output is
// sent as it came; a shell_call_output's chunks become one chunk whose
// stdout is the stub (its outcome kept). The body sent parses and is
// within the budget.
func TestAcceptResponsesLoopOutputs(t *testing.T) {
	var items []string
	items = append(items, `{"role":"user","content":[{"type":"input_text","text":"Book a table at Casa do Rio."}]}`)
	for i := range 30 {
		items = append(items,
			fmt.Sprintf(`{"type":"computer_call","id":"cu_%d","call_id":"call_c%d","action":{"type":"click","x":1,"y":2},"pending_safety_checks":[],"status":"completed"}`, i, i),
			fmt.Sprintf(`{"type":"computer_call_output","call_id":"call_c%d","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,AA=="}}`, i),
			fmt.Sprintf(`{"type":"function_call","call_id":"call_s%d","name":"shell","arguments":"{}"}`, i),
			fmt.Sprintf(`{"type":"shell_call_output","call_id":"call_s%d","output":[{"stdout":%s,"stderr":"warning: slow disk","outcome":{"type":"exit","exit_code":0}},{"stdout":"more","stderr":"","outcome":{"type":"exit","exit_code":0}}]}`, i,
				jstr(strings.Repeat(fmt.Sprintf("line %d of output number %d with some words\n", i, i*31), 40))))
	}
	body := []byte(`{"model":"computer-use-preview","input":[` + strings.Join(items, ",") + `]}`)
	in, err := chat.Parse(body, chat.Responses)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Budget = 8000
	c := mustNew(t, o)
	res, err := c.Compress(context.Background(), in.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fits || len(res.Rewritten) == 0 {
		t.Fatalf("not compressed with stubs: fits %v, %d rewritten", res.Fits, len(res.Rewritten))
	}
	out, err := SpliceRequest(in, res)
	if err != nil {
		t.Fatalf("splice: %v", err)
	}
	back, err := chat.Parse(out, chat.Responses)
	if err != nil {
		t.Fatalf("the body sent does not parse: %v", err)
	}
	// The memory goes into the task's message item (no developer item
	// after the first: strict chat templates refuse one), so the request
	// costs a message's overhead less than Result.Tokens counts.
	if n := c.CountMessages(back.Messages); n > o.Budget || n != res.Tokens-MessageOverhead {
		t.Errorf("sent %d tokens (Result.Tokens %d less %d for the memory in the task), budget %d", n, res.Tokens, MessageOverhead, o.Budget)
	}
	var first struct{ Input []json.RawMessage }
	json.Unmarshal(out, &first)
	if res.Memory == "" || len(first.Input) == 0 || !strings.HasPrefix(string(first.Input[0]), `{"role":"user","content":[{"type":"input_text","text":"Book a table at Casa do Rio."},{"type":"input_text","text":"Earlier steps of this tool loop`) {
		t.Errorf("the memory is not an input_text part of the task's item: %.300s", first.Input[0])
	}
	for _, it := range first.Input[1:] {
		if strings.Contains(string(it), `"role":"developer"`) {
			t.Errorf("a developer item after the first: %.200s", it)
		}
	}
	src := map[string]bool{}
	for _, it := range items {
		src[it] = true
	}
	var sent struct{ Input []json.RawMessage }
	json.Unmarshal(out, &sent)
	stubs := 0
	for _, raw := range sent.Input {
		var it struct {
			Type   string
			Output json.RawMessage
		}
		json.Unmarshal(raw, &it)
		switch {
		case src[string(raw)]:
		case it.Type == "shell_call_output":
			var chunks []struct {
				Stdout, Stderr string
				Outcome        json.RawMessage
			}
			if json.Unmarshal(it.Output, &chunks) != nil || len(chunks) != 1 || !strings.HasPrefix(chunks[0].Stdout, "[swc:h") || chunks[0].Stderr != "" || string(chunks[0].Outcome) != `{"type":"exit","exit_code":0}` {
				t.Errorf("a stubbed shell_call_output: %.300s", raw)
			}
			stubs++
		case bytes.Contains(raw, []byte(LoopPreamble[:20])):
		default:
			t.Errorf("sent an item that is none of the request's: %.300s", raw)
		}
	}
	if stubs == 0 {
		t.Error("no shell_call_output stubbed")
	}
}
