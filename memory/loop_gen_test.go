package memory

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// genLoop returns an agent's tool loop of steps exchanges: a system
// prompt, a task, then assistant turns each calling one to three tools
// (text: one command in a fenced block, its output coming back as a user
// observation message), outputs of 5 to about maxLines lines; now and
// then (every 40 steps or so) a person's user message. Every call has an
// id of its own (call_0001, call_0002, …), its results follow in the
// order of the calls.
func genLoop(rng *rand.Rand, steps int, text bool, maxLines int) []swc.Message {
	return genLoopIDs(rng, steps, text, maxLines, loopIDs{})
}

// loopIDs says how genLoopIDs names a tool loop's calls and orders their
// results. The zero value is genLoop's.
type loopIDs struct {
	// reuse: every turn names its calls call_0, call_1, … again, as
	// agents do whose SDK numbers the calls of each turn (or a local
	// model's server, or a client that fills in Gemini's missing ids).
	reuse bool
	// calls: how many calls a turn makes (0: one to three at random).
	calls int
	// shuffle: a turn's results come in another order than its calls
	// (as parallel tools finish).
	shuffle bool
	// prose: every third turn reasons at length before it acts, so old
	// turns are clipped (Options.TurnTokens).
	prose bool
}

// genLoopIDs is genLoop with the calls named and their results ordered
// as ids says.
func genLoopIDs(rng *rand.Rand, steps int, text bool, maxLines int, ids loopIDs) []swc.Message {
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent. Use the tools to inspect and edit the repository, then finish."},
		{Role: swc.RoleUser, Content: "Fix the crash in src/app/parser.py when parse_header gets an empty line; tests in tests/test_parser.py."},
	}
	call := 0
	for s := range steps {
		if s > 0 && rng.IntN(40) == 0 {
			msgs = append(msgs, swc.Message{Role: swc.RoleUser, Content: fmt.Sprintf("Also keep the change small, please (note %d).", s)})
		}
		file := fmt.Sprintf("src/app/mod_%d.py", rng.IntN(50))
		think := fmt.Sprintf("Step %d: I will look at %s and the function handle_%d next.", s, file, rng.IntN(100))
		if ids.prose && s%3 == 0 {
			think += strings.Repeat(fmt.Sprintf(" The value of handle_%d drifts because the header is read before its encoding.", rng.IntN(100)), 2+rng.IntN(6))
		}
		if text {
			cmd := fmt.Sprintf("grep -n handle_%d %s && sed -n 1,80p %s", rng.IntN(100), file, file)
			msgs = append(msgs,
				swc.Message{Role: swc.RoleAssistant, Content: "THOUGHT: " + think + "\n\n```bash\n" + cmd + "\n```"},
				swc.Message{Role: swc.RoleUser, Content: "<returncode>" + fmt.Sprint(rng.IntN(2)) + "</returncode>\n<output>\n" + genOutput(rng, file, maxLines) + "</output>"})
			continue
		}
		n := ids.calls
		if n == 0 {
			n = 1 + rng.IntN(3)
		}
		a := swc.Message{Role: swc.RoleAssistant, Content: think}
		var results []swc.Message
		for k := range n {
			call++
			id := fmt.Sprintf("call_%04d", call)
			if ids.reuse {
				id = fmt.Sprintf("call_%d", k)
			}
			args, _ := json.Marshal(map[string]string{"command": "cat -n " + file})
			a.ToolCalls = append(a.ToolCalls, swc.ToolCall{ID: id, Name: "execute_bash", Arguments: string(args)})
			results = append(results, swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: genOutput(rng, file, maxLines)})
		}
		if ids.shuffle && n > 1 { // rotated: never the calls' order
			r := 1 + rng.IntN(n-1)
			results = append(results[r:], results[:r]...)
		}
		msgs = append(append(msgs, a), results...)
	}
	return msgs
}

func genOutput(rng *rand.Rand, file string, maxLines int) string {
	var b strings.Builder
	lines := 5 + rng.IntN(max(maxLines-4, 1))
	for l := range lines {
		switch rng.IntN(12) {
		case 0:
			fmt.Fprintf(&b, "%s:%d: Error: name 'value_%d' is not defined\n", file, l+1, rng.IntN(1000))
		case 1:
			fmt.Fprintf(&b, "FAILED tests/test_parser.py::test_case_%d - AssertionError\n", rng.IntN(300))
		default:
			fmt.Fprintf(&b, "%6d\t    result_%d = compute_value(item_%d, offset=%d)  # step\n", l+1, rng.IntN(500), rng.IntN(500), rng.IntN(10000))
		}
	}
	return b.String()
}

// loopBody returns msgs as a request body of format f (openai or
// anthropic, responses, gemini or interactions).
func loopBody(msgs []swc.Message, f chat.Format) []byte {
	if f == chat.Anthropic {
		req := chat.ToAnthropic(msgs)
		b, _ := json.Marshal(struct {
			Model     string `json:"model"`
			MaxTokens int    `json:"max_tokens"`
			chat.AnthropicRequest
		}{"claude", 1024, req})
		return b
	}
	if f == chat.Gemini {
		return geminiLoopBody(msgs, true)
	}
	if f == chat.Interactions {
		return interactionsLoopBody(msgs)
	}
	if f == chat.Responses {
		instructions, items := chat.ResponsesInput(msgs)
		b, _ := json.Marshal(map[string]any{"model": "gpt", "instructions": instructions, "input": items})
		return b
	}
	b, _ := json.Marshal(map[string]any{"model": "gpt", "messages": chat.OpenAIMessages(msgs)})
	return b
}

// requestPrefixes returns the lengths of the prefixes of msgs an agent
// sent: those ending just before an assistant turn, and msgs whole.
func requestPrefixes(msgs []swc.Message) []int {
	var out []int
	for k := 1; k < len(msgs); k++ {
		if msgs[k].Role == swc.RoleAssistant {
			out = append(out, k)
		}
	}
	return append(out, len(msgs))
}

// geminiLoopBody writes msgs as a generateContent body: system messages
// in systemInstruction, the assistant's turns as model contents with
// functionCall parts, tool results as functionResponse parts of the user
// content after them (with any user text that follows), as Gemini
// clients send them; the calls' and responses' ids when ids, else none
// (chat pairs a response with the call of its name, and names the call).
func geminiLoopBody(msgs []swc.Message, ids bool) []byte {
	type content struct {
		Role  string           `json:"role"`
		Parts []map[string]any `json:"parts"`
	}
	var sys []map[string]any
	var contents []content
	names := map[string]string{}
	add := func(role string, part map[string]any) {
		if n := len(contents); n > 0 && contents[n-1].Role == role && role == "user" {
			contents[n-1].Parts = append(contents[n-1].Parts, part)
			return
		}
		contents = append(contents, content{Role: role, Parts: []map[string]any{part}})
	}
	for _, m := range msgs {
		switch m.Role {
		case swc.RoleSystem:
			sys = append(sys, map[string]any{"text": m.Content})
		case swc.RoleAssistant:
			c := content{Role: "model"}
			if m.Content != "" {
				c.Parts = append(c.Parts, map[string]any{"text": m.Content})
			}
			for _, tc := range m.ToolCalls {
				names[tc.ID] = tc.Name
				fc := map[string]any{"name": tc.Name, "args": json.RawMessage(tc.Arguments)}
				if ids {
					fc["id"] = tc.ID
				}
				c.Parts = append(c.Parts, map[string]any{"functionCall": fc})
			}
			contents = append(contents, c)
		case swc.RoleTool:
			fr := map[string]any{"name": names[m.ToolCallID], "response": map[string]any{"output": m.Content}}
			if ids {
				fr["id"] = m.ToolCallID
			}
			add("user", map[string]any{"functionResponse": fr})
		default:
			add("user", map[string]any{"text": m.Content})
		}
	}
	b, _ := json.Marshal(map[string]any{"systemInstruction": map[string]any{"parts": sys}, "contents": contents})
	return b
}

// interactionsLoopBody writes msgs as an Interactions request of steps,
// as a client keeping its own history sends it (store false): system
// messages in system_instruction, a user text a user_input step, an
// assistant turn a model_output step of its text then a function_call
// step a call, a tool result a function_result step.
func interactionsLoopBody(msgs []swc.Message) []byte {
	text := func(s string) []map[string]any { return []map[string]any{{"type": "text", "text": s}} }
	var sys []string
	var steps []map[string]any
	names := map[string]string{}
	for _, m := range msgs {
		switch m.Role {
		case swc.RoleSystem:
			sys = append(sys, m.Content)
		case swc.RoleAssistant:
			if m.Content != "" {
				steps = append(steps, map[string]any{"type": "model_output", "content": text(m.Content)})
			}
			for _, tc := range m.ToolCalls {
				names[tc.ID] = tc.Name
				var args any = json.RawMessage(tc.Arguments)
				if !json.Valid([]byte(tc.Arguments)) || !strings.HasPrefix(strings.TrimSpace(tc.Arguments), "{") {
					args = map[string]any{"input": tc.Arguments}
				}
				steps = append(steps, map[string]any{"type": "function_call", "id": tc.ID, "name": tc.Name, "arguments": args})
			}
		case swc.RoleTool:
			steps = append(steps, map[string]any{"type": "function_result", "call_id": m.ToolCallID, "name": names[m.ToolCallID], "result": m.Content})
		default:
			steps = append(steps, map[string]any{"type": "user_input", "content": text(m.Content)})
		}
	}
	body := map[string]any{"model": "gemini-3-flash-preview", "store": false, "input": steps}
	if len(sys) > 0 {
		body["system_instruction"] = strings.Join(sys, "\n\n")
	}
	b, _ := json.Marshal(body)
	return b
}
