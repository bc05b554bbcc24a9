package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/locomotest"
)

// loadLoCoMo returns the LoCoMo conversations (see locomotest.Load).
func loadLoCoMo(tb testing.TB) []*swc.Conversation { return locomotest.Load(tb) }

// openAIBody returns msgs as a Chat Completions request body.
func openAIBody(tb testing.TB, msgs []swc.Message) []byte {
	raw, err := json.Marshal(OpenAIMessages(msgs))
	if err != nil {
		tb.Fatal(err)
	}
	return fmt.Appendf(nil, `{"model":"gpt-4o","temperature":0.2,"messages":%s}`, raw)
}

// anthropicBodyOf returns msgs as a Messages request body.
func anthropicBodyOf(tb testing.TB, msgs []swc.Message) []byte {
	req := ToAnthropic(msgs)
	raw, err := json.Marshal(req.Messages)
	if err != nil {
		tb.Fatal(err)
	}
	sys, _ := json.Marshal(req.System)
	return fmt.Appendf(nil, `{"model":"claude-haiku-4-5","max_tokens":1024,"system":%s,"messages":%s}`, sys, raw)
}

// metaArray returns msgs as an OpenAI message array that also carries each
// message's id, session and timestamp, which OpenAIMessages leaves out.
func metaArray(tb testing.TB, msgs []swc.Message) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i, m := range msgs {
		raw, err := json.Marshal(OpenAIMessages(msgs[i : i+1])[0])
		if err != nil {
			tb.Fatal(err)
		}
		if i > 0 {
			b.WriteString(",\n")
		}
		b.Write(raw[:len(raw)-1])
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, `,"id":%q,"session":%q`, m.ID, m.Session)
		case 1:
			fmt.Fprintf(&b, `,"id":%d,"session":null`, i)
		case 2:
			if !m.Time.IsZero() {
				fmt.Fprintf(&b, `,"created_at":%d.25`, m.Time.Unix())
			}
		}
		if !m.Time.IsZero() && i%4 != 2 {
			fmt.Fprintf(&b, `,"timestamp":%q`, m.Time.Format("2006-01-02T15:04:05.999Z07:00"))
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// sameParse checks that Parse (the fast path where it applies) and the
// general parsers it replaced give the same Input, or the same error, for
// data in format f.
func sameParse(t *testing.T, name string, data []byte, f Format) (fast bool) {
	t.Helper()
	trimmed := []byte(strings.TrimSpace(strings.TrimPrefix(string(data), "\xef\xbb\xbf")))
	fast = parseFast(trimmed, f, false) != nil
	got, gotErr := Parse(data, f)
	want, wantErr := parseGeneral(trimmed, f, reading{})
	if wantErr == nil {
		want.Format = f
		wantErr = Validate(want.Messages, want.Where)
	}
	switch {
	case gotErr != nil || wantErr != nil:
		if gotErr == nil || wantErr == nil || gotErr.Error() != wantErr.Error() || swc.ErrorCode(gotErr) != swc.ErrorCode(wantErr) {
			t.Errorf("%s (%s, fast %v): error %v, general parser: %v\ninput: %q", name, f, fast, gotErr, wantErr, clip(data))
		}
	case !reflect.DeepEqual(got, want):
		t.Errorf("%s (%s, fast %v): inputs differ\ninput: %q\n%s", name, f, fast, clip(data), diffInput(got, want))
	}
	return fast
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// diffInput names the first field where a and b differ.
func diffInput(a, b *Input) string {
	switch {
	case a.Format != b.Format:
		return fmt.Sprintf("format %q vs %q", a.Format, b.Format)
	case !reflect.DeepEqual(a.Body, b.Body):
		return fmt.Sprintf("body %q vs %q", a.Body, b.Body)
	case !reflect.DeepEqual(a.Raw, b.Raw):
		return fmt.Sprintf("raw %q vs %q", a.Raw, b.Raw)
	case !reflect.DeepEqual(a.Where, b.Where):
		return fmt.Sprintf("where %q vs %q", a.Where, b.Where)
	case !reflect.DeepEqual(a.Origin, b.Origin):
		return fmt.Sprintf("origin %v vs %v", a.Origin, b.Origin)
	case !reflect.DeepEqual(a.Warnings, b.Warnings):
		return fmt.Sprintf("warnings %q vs %q", a.Warnings, b.Warnings)
	case len(a.Messages) != len(b.Messages):
		return fmt.Sprintf("%d vs %d messages", len(a.Messages), len(b.Messages))
	}
	for i := range a.Messages {
		if !reflect.DeepEqual(a.Messages[i], b.Messages[i]) {
			return fmt.Sprintf("message %d:\n%#v\n%#v", i, a.Messages[i], b.Messages[i])
		}
	}
	return "?"
}

// trickyInputs are small bodies at the edges of what the fast path reads:
// each must come out as the general parser has it.
var trickyInputs = []string{
	`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
	`[{"role":"user","content":"hi"}]`,
	`{"messages":[{"role":"user","content":"a"}],"messages":[{"role":"user","content":"b"}]}`,
	`{"messages":[{"role":"user","content":"a"}],"model":"x","model":"y"}`,
	`{"messages":[{"role":"user","role":"assistant","content":"a"}]}`,
	`{"messages":[{"Role":"user","content":"a"}]}`,
	`{"messages":[{"ROLE":"user","CONTENT":"a"}]}`,
	`{"messages":[{"r\u006fle":"user","content":"a"}]}`,
	`{"m\u0065ssages":[{"role":"user","content":"a"}]}`,
	`{"messages":[{"role":"user","content":"a","ſession":"s"}]}`,
	`{"messages":[{"role":"user","content":"a","id":"\u212a"}]}`,
	`{"messages":[{"role":null,"content":"a"}]}`,
	`{"messages":[{"role":"user","content":null}]}`,
	`{"messages":[{"role":"user"}]}`,
	`{"messages":[{"role":"user","content":5}]}`,
	`{"messages":[{"role":"user","content":{}}]}`,
	`{"messages":[{"role":"user","content":[]}]}`,
	`{"messages":[{"role":"user","content":[null]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"text"}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"text","text":null}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"refusal","refusal":"no"},{"type":"image_url","image_url":{"url":"u"}},{}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"text","text":"a","TEXT":"b"}]}]}`,
	`{"messages":[{"role":"assistant","content":"","refusal":"I can't"}]}`,
	`{"messages":[{"role":"assistant","content":null,"refusal":null}]}`,
	`{"messages":[{"role":"user","content":"a","speaker":null}]}`,
	`{"messages":[{"role":"user","content":"a","speaker":"x"}]}`,
	`{"messages":[{"role":"user","content":"a","speaker":1}]}`,
	`{"messages":[{"role":"user","content":"a","name":null,"tool_call_id":null}]}`,
	`{"messages":[{"role":"user","content":"a","name":7}]}`,
	`{"messages":[{"role":"assistant","tool_calls":null,"content":"x"}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[],"content":"x"}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[null]}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"r"}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{"name":"f"}}]},{"role":"tool","tool_call_id":"c","content":"r"}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":null}]},{"role":"tool","tool_call_id":"c","content":"r"}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"Name":"f"}}]},{"role":"tool","tool_call_id":"c","content":"r"}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"","function":{"name":"f"}}]}]}`,
	`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":[]}]}]}`,
	`{"messages":[{"role":"user","content":"a","timestamp":"2024-05-07T14:00:00Z"},{"role":"user","content":"b","timestamp":" 2024-05-07T14:00:00.5+02:00 "}]}`,
	`{"messages":[{"role":"user","content":"a","timestamp":"2024-05-07"}]}`,
	`{"messages":[{"role":"user","content":"a","timestamp":1715090400}]}`,
	`{"messages":[{"role":"user","content":"a","timestamp":null,"created_at":1715090400}]}`,
	`{"messages":[{"role":"user","content":"a","created_at":"1715090400.5"},{"role":"user","content":"b","created_at":1.7150904e9}]}`,
	`{"messages":[{"role":"user","content":"a","created_at":1e400}]}`,
	`{"messages":[{"role":"user","content":"a","created_at":-1}]}`,
	`{"messages":[{"role":"user","content":"a","created_at":"2024-05-07T14:00:00\u005a"}]}`,
	`{"messages":[{"role":"user","content":"a","created_at":true}]}`,
	`{"messages":[{"role":"user","content":"a","id":-0.5e+3,"session":"s\n1"}]}`,
	`{"messages":[{"role":"user","content":"a","id":{}}]}`,
	`{"messages":[{"role":"user","content":"a \"q\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 \ud83d \ude00 \ud83d\u0041 \u0000"}]}`,
	`{"messages":[{"role":"user","content":"a` + "\x01" + `"}]}`,
	`{"messages":[{"role":"user","content":"a\x"}]}`,
	`{"messages":[{"role":"user","content":"a\u12"}]}`,
	`{"messages":[{"role":"us\u0065r","content":"a"},{"role":"robot","content":"b"}]}`,
	`{"messages":[{"role":"user","content":"a"}]} x`,
	`{"messages":[{"role":"user","content":"a"}],}`,
	`{"messages":[{"role":"user","content":"a"},]}`,
	`{"messages":[{"role":"user","content":"a"}],"n":01}`,
	`{"messages":[{"role":"user","content":"a"}],"n":[1.,2]}`,
	`{"messages":[{"role":"user","content":"a"}],"n":[-,2]}`,
	`{"messages":[{"role":"user","content":"a"}],"n":[1e,2]}`,
	`{"messages":[{"role":"user","content":"a"}],"n":[tru]}`,
	`{"messages":[{"role":"user","content":"a"}],"n":[nul]}`,
	`{"messages":[{"role":"user","content":"a"}],"n":[[[[[[[[[[[[]]]]]]]]]]]]}`,
	`{"messages":[{"role":"user","content":"a"}],"n":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`,
	// long escaped texts one after another (the unescaping buffer reused)
	`{"messages":[{"role":"user","content":"` + strings.Repeat(`a\n`, 300) + `"},{"role":"assistant","content":"` + strings.Repeat(`\u00e9b`, 200) + `"},{"role":"user","content":"` + strings.Repeat(`\"q`, 900) + `","name":"\u0041"}]}`,
	`{"messages":[{"role":"user","content":"a"}],"bad":"` + "\xff" + `"}`,
	`{"messages":[{"role":"user","content":"` + "\xff" + `"}]}`,
	`{"messages":[{"role":"user","content":"a\ud800b"}]}`,
	`{"messages":[{"role":"user","name":"\udfff","content":"a"}]}`,
	`{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f\ud83d","arguments":"\ud83d{}"}}]},{"role":"tool","tool_call_id":"c","content":"r"}]}`,
	`{"messages":[{"role":"user","content":"\ud83d\ude00 paired"}]}`,
	`{"messages":[{"role":"user","content":"a","name":"\\u0041"},{"role":"user","content":"b","name":"\u0041"},{"role":"user","content":"c","name":"\\u0041"}]}`,
	"\xef\xbb\xbf  {\"messages\":[{\"role\":\"user\",\"content\":\"a\"}]}\n",
	`{"messages":"x"}`,
	`{"messages":null}`,
	`{"model":"m"}`,
	`{"role":"user","content":"one jsonl line"}`,
	"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":\"b\"}",
	`[]`,
	`[1]`,
	`[null]`,
	`"x"`,
	``,
	// anthropic
	`{"system":"be brief","messages":[{"role":"user","content":"hi"}]}`,
	`{"system":"","messages":[{"role":"user","content":"hi"}]}`,
	`{"system":null,"messages":[{"role":"user","content":"hi"}]}`,
	`{"system":"a","system":"b","messages":[{"role":"user","content":"hi"}]}`,
	`{"system":"a","messages":[]}`,
	`{"system":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b"}],"messages":[{"role":"user","content":"hi"}]}`,
	`{"system":[{"type":"image"}],"messages":[{"role":"user","content":"hi"}]}`,
	`{"system":[null],"messages":[{"role":"user","content":"hi"}]}`,
	`{"system":5,"messages":[{"role":"user","content":"hi"}]}`,
	`{"messages":[{"role":"user","content":"hi"}],"system":[{"type":"text","text":"after"}]}`,
	`{"messages":[{"role":"system","content":"hi"}]}`,
	`{"messages":[{"role":"user","content":null}]}`,
	`{"messages":[{"role":"user","content":[]}]}`,
	`{"messages":[{"content":[{"type":"text","text":"x"}],"role":"user"}]}`,
	`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","data":"AA=="}},{"type":"document","content":{"x":1}}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"text"}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"text","text":"a","is_error":"no"}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"text","text":"a","is_error":true,"input":5}]}]}`,
	`{"messages":[{"role":"user","content":[null]}]}`,
	`{"messages":[{"role":"user","content":["x"]}]}`,
	`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"f","input":{"a":1}},{"type":"tool_use","id":"t2","name":"g","input":null},{"type":"tool_use","id":"t3","name":"h"}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r1"},{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"r2"},{"type":"image"},null],"is_error":true},{"type":"tool_result","tool_use_id":"t3"},{"type":"text","text":"next"}]}]}`,
	`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{"a":1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":{"x":1}}]}]}`,
	`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{"a":1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a","is_error":1}]}]}]}`,
	`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{"a":1}}]},{"role":"user","content":[{"type":"text","text":"first"},{"type":"tool_result","tool_use_id":"t1","content":"r"}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"tool_use","id":"t1","name":"f"}]}]}`,
	`{"messages":[{"role":"assistant","content":[{"type":"tool_result","tool_use_id":"t1"}]}]}`,
	`{"messages":[{"role":"assistant","content":[{"type":"tool_use","name":"f"}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"tool_result","content":"r"}]}]}`,
	`{"messages":[{"role":"user","content":"a","timestamp":"2024-05-07T14:00:00Z","id":"m1","session":2}]}`,
	`{"messages":[{"role":"user","content":"a"}],"system":"s","max_tokens":5}`,
	// what the provider accepts: mid-conversation system messages, blocks
	// of every type (fields of any shape in those swc does not read),
	// parts of every type
	claudeCodeBody,
	`{"system":"s","messages":[{"role":"user","content":"q"},{"role":"system","content":[{"type":"text","text":"now terse","cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":"ok"}]}`,
	`{"messages":[{"role":"system","content":null}]}`,
	`{"messages":[{"role":"user","content":"q"},{"role":"system","content":[{"type":"tool_use","id":"t","name":"f"}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"future_block","text":5,"id":{"a":1},"name":[],"input":"x","tool_use_id":7,"is_error":"yes","content":{}}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"text","text":5}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":5}]}]}`,
	`{"messages":[{"role":"user","content":[{"text":"no type"}]}]}`,
	`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}},{"type":"document","source":{"type":"text","data":"d"},"title":5},{"type":"search_result","source":"s","title":"t","content":[{"type":"text","text":"r"}]},{"type":"text","text":"t","citations":null}]}]}]}`,
	`{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"future","text":{"x":1}}]}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"input_audio","input_audio":{"data":"AA==","format":"wav"}},{"type":"file","file":{"file_id":"f"}},{"type":"future","text":{"x":1},"refusal":5}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"refusal","refusal":5}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":null,"text":"x"}]}]}`,
	`{"messages":[{"role":"user","content":"a"}]`,
	`{"messages":[{"role":"user","content":"a"}]}}`,
	`not json`,
}

// claudeCodeBody is a Messages request as Claude Code sends it:
// mid-conversation system messages, thinking blocks with signatures,
// redacted thinking, server tool blocks, cache_control marks, a tool
// result with an image and text after the results.
const claudeCodeBody = `{"model":"claude-opus-4-8","max_tokens":32000,"stream":true,` +
	`"system":[{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}],` +
	`"tools":[{"name":"Bash","description":"Run a command","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}],` +
	`"thinking":{"type":"enabled","budget_tokens":16000},"context_management":{"edits":[]},"messages":[` +
	`{"role":"user","content":[{"type":"text","text":"fix the failing test"}]},` +
	`{"role":"system","content":"<system-reminder>todo list is empty</system-reminder>"},` +
	`{"role":"assistant","content":[{"type":"thinking","thinking":"Let me look.","signature":"EqQBCkYIBxgCKkD"},{"type":"redacted_thinking","data":"EmwKAhgBEgy"},{"type":"text","text":"Running the tests."},{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"go test ./..."}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"FAIL x_test.go:12"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}],"is_error":true},{"type":"text","text":"<system-reminder>file changed</system-reminder>","cache_control":{"type":"ephemeral"}}]},` +
	`{"role":"system","content":[{"type":"text","text":"Plan mode is off."}]},` +
	`{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"go test"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://go.dev","title":"Go","encrypted_content":"Eq"}]},{"type":"mcp_tool_use","id":"mcptoolu_1","name":"read","server_name":"fs","input":{}},{"type":"mcp_tool_result","tool_use_id":"mcptoolu_1","is_error":false,"content":[{"type":"text","text":"x"}]},{"type":"text","text":"Found it."}]},` +
	`{"role":"user","content":[{"type":"container_upload","file_id":"file_1"},{"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes"},"citations":{"enabled":true}},{"type":"search_result","source":"kb","title":"t","content":[{"type":"text","text":"r"}]},{"type":"text","text":"go on"}]}]}`

// TestParseFastMatchesGeneral checks the fast path of Parse against the
// general parsers (the parser as it was before the fast path, kept for
// every input the fast path leaves to it): the LoCoMo conversations and the
// built-in sample as OpenAI and Anthropic bodies and arrays, tricky
// inputs, the fuzz seeds, and every one-byte deletion and a set of
// insertions at every position of the small ones. Both formats parse every
// input; each must give the same Input, field for field, or the same
// error.
func TestParseFastMatchesGeneral(t *testing.T) {
	var big [][]byte
	for _, c := range loadLoCoMo(t) {
		msgs := FromConversation(c)
		big = append(big, openAIBody(t, msgs), anthropicBodyOf(t, msgs), metaArray(t, msgs))
	}
	sample, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	big = append(big, openAIBody(t, sample), anthropicBodyOf(t, sample), metaArray(t, sample), jsonArray(SampleJSONL()))
	fastN := map[Format]int{}
	for i, data := range big {
		for _, f := range []Format{OpenAI, Anthropic} {
			if sameParse(t, fmt.Sprintf("body %d", i), data, f) {
				fastN[f]++
			}
		}
	}
	t.Logf("fast path took %v of %d bodies", fastN, len(big))
	// The fast path must really take the bodies clients send.
	if fastN[OpenAI] < len(big)/3 || fastN[Anthropic] < len(big)/3 {
		t.Errorf("fast path took %d openai and %d anthropic of %d bodies", fastN[OpenAI], fastN[Anthropic], len(big))
	}

	small := append([]string{}, trickyInputs...)
	small = append(small, openaiArray, anthropicBody, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		`[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"r"}]}]`,
		`[{"role":null}]`)
	for i, s := range small {
		for _, f := range []Format{OpenAI, Anthropic} {
			sameParse(t, fmt.Sprintf("tricky %d", i), []byte(s), f)
		}
	}
	if testing.Short() {
		return
	}
	inserts := []string{"null", `"`, `\`, ",", "}", "]", "1", " ", `"x":1,`, `\u0041`, "{", "[", "\xff", "\u212a"}
	for i, s := range small {
		if len(s) > 1500 {
			continue
		}
		for pos := range len(s) + 1 {
			var variants []string
			if pos < len(s) {
				variants = append(variants, s[:pos]+s[pos+1:], s[:pos]+strings.ToUpper(s[pos:pos+1])+s[pos+1:])
			}
			for _, ins := range inserts {
				variants = append(variants, s[:pos]+ins+s[pos:])
			}
			for k, v := range variants {
				for _, f := range []Format{OpenAI, Anthropic} {
					sameParse(t, fmt.Sprintf("tricky %d at %d variant %d", i, pos, k), []byte(v), f)
				}
			}
		}
		if t.Failed() {
			return
		}
	}
}

// jsonArray turns JSONL into a JSON array.
func jsonArray(lines []byte) []byte {
	var parts []string
	for _, l := range strings.Split(string(lines), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return []byte("[" + strings.Join(parts, ",\n") + "]")
}

// BenchmarkParse times Parse against the general parsers it replaced
// (general: the parser before the fast path) on LoCoMo conv-26 as a Chat
// Completions body (419 messages) and as a Messages body; tokens is the
// floor of the fast path: jsontext's ReadToken over the body, nothing kept.
func BenchmarkParse(b *testing.B) {
	msgs := FromConversation(loadLoCoMo(b)[0])
	for _, tc := range []struct {
		name string
		f    Format
		body []byte
	}{
		{"openai", OpenAI, openAIBody(b, msgs)},
		{"anthropic", Anthropic, anthropicBodyOf(b, msgs)},
	} {
		b.Run(tc.name+"/fast", func(b *testing.B) {
			b.SetBytes(int64(len(tc.body)))
			for b.Loop() {
				if _, err := Parse(tc.body, tc.f); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/owned", func(b *testing.B) {
			b.SetBytes(int64(len(tc.body)))
			for b.Loop() {
				if _, err := ParseOwned(tc.body, tc.f); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/tokens", func(b *testing.B) {
			b.SetBytes(int64(len(tc.body)))
			for b.Loop() {
				d := jsontext.NewDecoder(bytes.NewBuffer(tc.body), fastOptions)
				for {
					if _, err := d.ReadToken(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		b.Run(tc.name+"/general", func(b *testing.B) {
			b.SetBytes(int64(len(tc.body)))
			for b.Loop() {
				in, err := parseGeneral(tc.body, tc.f, reading{})
				if err != nil {
					b.Fatal(err)
				}
				if err := Validate(in.Messages, in.Where); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzParseFast: on anything, Parse (with its fast path) and the general
// parsers give the same Input or the same error, in both formats.
func FuzzParseFast(f *testing.F) {
	fuzzSeeds(f)
	for _, s := range trickyInputs {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []Format{OpenAI, Anthropic} {
			sameParse(t, "fuzz", data, format)
		}
	})
}

// TestParseOwned: ParseOwned reads what Parse reads, its Raw and Body
// slices of the data given (Parse's of a copy), capped.
func TestParseOwned(t *testing.T) {
	for _, tc := range []struct {
		f    Format
		body string
	}{
		{OpenAI, `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"caf\u00e9"}]}`},
		{Anthropic, `{"system":"s","messages":[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":"b"}]}`},
		{OpenAI, `[{"role":"user","content":"a"}]`},
	} {
		data := []byte(tc.body)
		want, err := Parse(data, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseOwned(data, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: ParseOwned %+v, Parse %+v", tc.body, got, want)
		}
		within := func(b []byte) bool {
			if len(b) == 0 {
				return false
			}
			p, d := uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&data[0]))
			return p >= d && p < d+uintptr(len(data))
		}
		for k, r := range got.Raw {
			if !within(r) || cap(r) != len(r) {
				t.Errorf("%s: owned Raw[%d] not a capped slice of the data", tc.body, k)
			}
			if within(want.Raw[k]) {
				t.Errorf("%s: Parse's Raw[%d] aliases the caller's data", tc.body, k)
			}
		}
		for k, v := range got.Body {
			if !within(v) {
				t.Errorf("%s: owned Body[%q] not a slice of the data", tc.body, k)
			}
		}
	}
	// The messages' texts are their own, of Parse and of ParseOwned alike:
	// writing over the data leaves them as read, and a message kept (in a
	// cache, a store's state) keeps its own texts in memory, not the body.
	for _, tc := range []struct {
		f    Format
		body string
	}{
		{OpenAI, `{"messages":[{"role":"user","content":"hello","name":"Ann"}]}`},
		{OpenAI, `{"messages":[{"role":"user","content":"h\u00e9llo"}]}`},
		{OpenAI, `{"messages":[{"role":"user","content":"q","id":"m1","metadata":{"session":"s1","timestamp":"2026-01-02T03:04:05Z"}},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},` +
			`{"role":"tool","tool_call_id":"call_1","content":"r"}]}`},
		{Anthropic, `{"system":"sys","messages":[{"role":"user","content":[{"type":"text","text":"a"}]},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"tu_1","name":"f","input":{"a":1}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu_1","content":"r"}]}]}`},
	} {
		for name, parse := range map[string]func([]byte, Format) (*Input, error){"Parse": Parse, "ParseOwned": ParseOwned} {
			data := []byte(tc.body)
			in, err := parse(data, tc.f)
			if err != nil {
				t.Fatalf("%s(%s): %v", name, tc.body, err)
			}
			before := fmt.Sprintf("%+v", in.Messages)
			for k := range data {
				data[k] = 'x'
			}
			if after := fmt.Sprintf("%+v", in.Messages); after != before {
				t.Errorf("%s: messages changed with the data: %s, then %s", name, before, after)
			}
		}
	}
	if _, err := ParseOwned([]byte(`{"messages":[]}`), OpenAI); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("ParseOwned of no messages: %v, want Parse's error", err)
	}
}
