package chat

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/swcmem/swc"
)

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		openaiArray, anthropicBody, string(SampleJSONL()),
		`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		`{"time":"2024-05-07T14:00:00Z","speaker":"Maya","text":"hi","session":1}`,
		`[{"sample_id":"x","conversation":{}}]`,
		`[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"r"}]}]`,
		"{\"role\":\"user\",\"content\":\"a\",\"created_at\":1.5e9}\n{\"role\":\"user\",\"content\":\"\xff\"}",
		`[]`, ``, `{`, `[{"role":null}]`,
	} {
		f.Add([]byte(s))
	}
}

// FuzzDetect: the detector never panics and either names a format or
// fails with one line.
func FuzzDetect(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		format, err := Detect(data)
		if err == nil && format == "" {
			t.Fatal("no format and no error")
		}
	})
}

// FuzzParse: every parser, on anything, returns valid messages or an
// error — never a panic — and what it returns can be written back out for
// both providers.
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []Format{Auto, OpenAI, Anthropic, JSONL} {
			in, err := Parse(data, format)
			if err != nil {
				continue
			}
			if len(in.Messages) != len(in.Where) || len(in.Messages) != len(in.Origin) {
				t.Fatalf("%s: %d messages, %d where, %d origin", format, len(in.Messages), len(in.Where), len(in.Origin))
			}
			if err := Validate(in.Messages, in.Where); err != nil {
				t.Fatalf("%s: Parse returned messages that fail Validate: %v", format, err)
			}
			if _, err := json.Marshal(OpenAIMessages(in.Messages)); err != nil {
				t.Fatal(err)
			}
			if _, err := json.Marshal(ToAnthropic(in.Messages)); err != nil {
				t.Fatal(err)
			}
			var conv []swc.Message
			for _, m := range in.Messages {
				if !IsInstruction(m) {
					conv = append(conv, m)
				}
			}
			g := Sessionize(conv, SessionOptions{Turns: 3})
			n := 0
			for _, s := range g.Spans {
				n += s.End - s.First
			}
			if n != len(conv) {
				t.Fatalf("%s: sessions hold %d of %d messages", format, n, len(conv))
			}
		}
	})
}

// FuzzSplice: in every format, any body either parses or is refused with
// an EINVALID error, never a panic; one that parses is written back, every
// message kept and a memory added, as a body that parses again.
func FuzzSplice(f *testing.F) {
	fuzzSeeds(f)
	for _, s := range []string{geminiBody, agentInput, interactionsSteps, interactionsTurns,
		`{"contents":[{"role":"user","parts":[{"text":"u"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"s"}]},{"parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}}]}]}`,
		`{"input":[{"role":"user","content":"u"},{"type":"reasoning","id":"r","encrypted_content":"e"},{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"x"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []Format{OpenAI, Anthropic, Responses, Gemini, Interactions} {
			spliceBack(t, data, format)
		}
	})
}

// spliceBack parses data as format and, when it parses, writes it back
// with every message kept and a memory added, failing t unless each step
// succeeds (Parse may refuse with an EINVALID error, Splice only what
// is not one JSON object: a bare list of messages, JSON lines, which have
// no request body) and what it writes parses again and holds the memory.
func spliceBack(t *testing.T, data []byte, format Format) {
	t.Helper()
	in, err := Parse(data, format)
	if err != nil {
		if swc.ErrorCode(err) != swc.EINVALID {
			t.Fatalf("%s: error %v is not EINVALID", format, err)
		}
		return
	}
	all := Output{Memory: "MEM-7f3a", Messages: []swc.Message{{Role: swc.RoleSystem, Content: "MEM-7f3a"}}, Source: []int{-1}}
	for i, m := range in.Messages {
		all.Messages = append(all.Messages, m)
		all.Source = append(all.Source, i)
	}
	out, err := Splice(in, all)
	if err != nil {
		if d := bytes.TrimSpace(data); swc.ErrorCode(err) != swc.EINVALID || bytes.HasPrefix(d, []byte("{")) && json.Valid(d) {
			t.Fatalf("%s: splice: %v", format, err)
		}
		return // a bare list of messages, JSON lines: no request body to write into
	}
	if _, err := Parse(out, format); err != nil {
		t.Fatalf("%s: written %s does not parse: %v", format, out, err)
	}
	if !bytes.Contains(out, []byte("MEM-7f3a")) {
		t.Fatalf("%s: written %s holds no memory", format, out)
	}
}
