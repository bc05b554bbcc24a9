package chat

import (
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
