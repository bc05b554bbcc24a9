package loadtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// A coding agent's tool loop, for `swc loadtest-proxy --bodies loop`: a
// system prompt, a task, then exchanges of an assistant turn calling one
// or two tools and their outputs (file views, grep hits, test logs of 5
// to 30 lines, about 400 tokens each). Every agent's loop is its own, and
// an agent's next exchange depends on the agent and the step alone, so a
// loop grows as an agent's does and can be rebuilt in any process.

// loopTools is the tools field of a loop's requests: the agent's one
// tool, declared as a coding agent declares it (so the proxy adds
// swc_recall once it stubs an output).
const loopTools = `[{"type":"function","function":{"name":"execute_bash","description":"Run a shell command in the repository and return its output.","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}}]`

// AgentLoop returns agent a's tool loop of about n messages: the system
// prompt, the task and whole exchanges (never a call without its output),
// at least one.
func AgentLoop(n, a int) []swc.Message {
	out := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent. Use execute_bash to inspect, edit and test the repository, then finish with a summary."},
		{Role: swc.RoleUser, Content: fmt.Sprintf("Agent %d: fix the crash in src/app%d/parser.py when parse_header gets an empty line; the tests are in tests/test_parser_%d.py.", a, a, a)},
	}
	for s := 0; s == 0 || len(out) < n; s++ {
		out = append(out, LoopStep(a, s)...)
	}
	return out
}

// LoopStep returns exchange s of agent a's loop: an assistant turn with
// one or two calls of execute_bash, then their outputs.
func LoopStep(a, s int) []swc.Message {
	rng := rand.New(rand.NewPCG(uint64(a)+1, uint64(s)+1))
	file := fmt.Sprintf("src/app%d/mod_%d.py", a, rng.IntN(60))
	turn := swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("Step %d: I will look at %s and handle_%d next.", s, file, rng.IntN(200))}
	var outs []swc.Message
	for k := range 1 + rng.IntN(2) {
		id := fmt.Sprintf("call_%d_%d_%d", a, s, k)
		cmd, output := loopCall(rng, a, file)
		args, _ := json.Marshal(map[string]string{"command": cmd})
		turn.ToolCalls = append(turn.ToolCalls, swc.ToolCall{ID: id, Name: "execute_bash", Arguments: string(args)})
		outs = append(outs, swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: output})
	}
	return append([]swc.Message{turn}, outs...)
}

// loopCall returns a command and its output: a file view, grep hits or a
// test run.
func loopCall(rng *rand.Rand, a int, file string) (string, string) {
	var b strings.Builder
	lines := 5 + rng.IntN(26)
	switch rng.IntN(3) {
	case 0:
		from := 1 + rng.IntN(400)
		for l := range lines {
			fmt.Fprintf(&b, "%6d\t    result_%d = compute_value(item_%d, offset=%d)  # step %d\n", from+l, rng.IntN(500), rng.IntN(500), rng.IntN(10000), a)
		}
		return fmt.Sprintf("cat -n %s | sed -n %d,%dp", file, from, from+lines-1), b.String()
	case 1:
		name := fmt.Sprintf("handle_%d", rng.IntN(200))
		for range lines {
			fmt.Fprintf(&b, "src/app%d/mod_%d.py:%d:    value = %s(request_%d, limit=%d)\n", a, rng.IntN(60), 1+rng.IntN(900), name, rng.IntN(1000), rng.IntN(100))
		}
		return "grep -rn " + name + " src/", b.String()
	}
	failed := 0
	for l := range lines {
		if rng.IntN(8) == 0 {
			failed++
			fmt.Fprintf(&b, "FAILED tests/test_parser_%d.py::test_case_%d - AssertionError: expected %d, got %d\n", a, l, rng.IntN(100), rng.IntN(100))
			continue
		}
		fmt.Fprintf(&b, "tests/test_parser_%d.py::test_case_%d PASSED [%3d%%]\n", a, l, 100*(l+1)/lines)
	}
	fmt.Fprintf(&b, "==== %d failed, %d passed in %d.%02ds ====\n", failed, lines-failed, rng.IntN(9), rng.IntN(100))
	return fmt.Sprintf("python -m pytest tests/test_parser_%d.py -q", a), b.String()
}

// LoopBody returns a Chat Completions request body of a loop's msgs
// declaring the loop's tool, its messages last (the body ends in "]}").
func LoopBody(msgs []swc.Message) ([]byte, error) {
	b, err := json.Marshal(chat.OpenAIMessages(msgs))
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, `{"model":"gpt-4o","temperature":0.2,"stream":false,"tools":%s,"messages":%s}`, loopTools, b), nil
}

// loopMessagesJSON returns msgs as the comma-separated JSON objects of a
// Chat Completions messages array, each preceded by a comma.
func loopMessagesJSON(msgs []swc.Message) ([]byte, error) {
	b, err := json.Marshal(chat.OpenAIMessages(msgs))
	if err != nil {
		return nil, err
	}
	return append([]byte{','}, b[1:len(b)-1]...), nil
}

// loopResponsesTools is loopTools as the Responses API declares a
// function.
const loopResponsesTools = `[{"type":"function","name":"execute_bash","description":"Run a shell command in the repository and return its output.","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}]`

// LoopResponsesBody returns a Responses request body of a loop's msgs, as
// Codex CLI sends one (instructions, the tool, store false, every item
// in input), its input last (the body ends in "]}").
func LoopResponsesBody(msgs []swc.Message) ([]byte, error) {
	instructions, items := chat.ResponsesInput(msgs)
	ins, err := json.Marshal(instructions)
	if err != nil {
		return nil, err
	}
	var b []byte
	b = fmt.Appendf(b, `{"model":"gpt-5-codex","instructions":%s,"tools":%s,"stream":false,"store":false,"input":[`, ins, loopResponsesTools)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, "]}"...), nil
}

// loopItemsJSON returns msgs, step s of agent a, as the comma-separated
// items of a Responses input array, each preceded by a comma, their
// message ids made the step's own ("msg_A_S_0", not the "msg_0" of every
// step).
func loopItemsJSON(a, s int, msgs []swc.Message) []byte {
	_, items := chat.ResponsesInput(msgs)
	var b []byte
	for _, it := range items {
		b = append(append(b, ','), bytes.ReplaceAll(it, []byte(`"id":"msg_`), fmt.Appendf(nil, `"id":"msg_%d_%d_`, a, s))...)
	}
	return b
}
