package chat

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

// TestStubCacheMark: in a tool loop the cache mark swc adds goes on the
// last stub (so a jump of the masking boundary keeps every stub before it
// cached), not on the memory; it takes the 1-hour TTL when a later mark
// has it, and is left out when the body has no room (four marks), when
// the block is marked already, or when no TTL could go there.
func TestStubCacheMark(t *testing.T) {
	const stub = "[swc:h0 stub]"
	turn := func(id string) string {
		return `{"role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"sh","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"output of ` + id + `"}]}`
	}
	body := func(system, lastMark string) string {
		last := `{"role":"assistant","content":[{"type":"tool_use","id":"t4","name":"sh","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t4","content":"output of t4"` + lastMark + `}]}`
		return `{"model":"c","max_tokens":9,"system":` + system + `,"messages":[{"role":"user","content":"task"},` +
			turn("t1") + `,` + turn("t2") + `,` + turn("t3") + `,` + last + `]}`
	}
	five, hour := `,"cache_control":{"type":"ephemeral"}`, `,"cache_control":{"type":"ephemeral","ttl":"1h"}`
	sys := func(marks ...string) string {
		var b []string
		for _, m := range marks {
			b = append(b, `{"type":"text","text":"s"`+m+`}`)
		}
		return "[" + strings.Join(b, ",") + "]"
	}
	for _, tc := range []struct {
		name, body string
		memory     string
		want       string // the mark on t2's stub ("" none)
		memMark    bool   // the memory block marked
	}{
		{"client marks its last message", body(sys(five), five), "", `{"type":"ephemeral"}`, false},
		{"with a memory: the stub's mark, not the memory's", body(sys(five), five), "Earlier steps…", `{"type":"ephemeral"}`, false},
		{"a later 1-hour mark", body(sys(hour), hour), "", `{"type":"ephemeral","ttl":"1h"}`, false},
		{"a 5-minute mark before a 1-hour one: none fits", body(sys(five), hour), "", "", false},
		{"four marks already", body(sys(five, five, five), five), "", "", false},
		{"no room for the stub's, none for the memory's", body(sys(five, five, five), five), "Earlier steps…", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Parse([]byte(tc.body), Anthropic)
			if err != nil {
				t.Fatal(err)
			}
			got := spliceStubs(t, in, Output{Memory: tc.memory}, stub, "output of t1", "output of t2")
			var b struct {
				System   []map[string]json.RawMessage `json:"system"`
				Messages []struct {
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(got, &b); err != nil {
				t.Fatalf("%v: %s", err, got)
			}
			marks := func(i int) []string { // the marks of message i's blocks
				var blocks []map[string]json.RawMessage
				json.Unmarshal(b.Messages[i].Content, &blocks)
				var out []string
				for _, bl := range blocks {
					out = append(out, string(bl["cache_control"]))
				}
				return out
			}
			if m := marks(2); len(m) != 1 || m[0] != "" { // t1's stub
				t.Errorf("the first stub is marked: %v", m)
			}
			if m := marks(4); len(m) != 1 || m[0] != tc.want {
				t.Errorf("the last stub's mark %v, want %q\n%s", m, tc.want, got)
			}
			memMarked := false
			for _, bl := range b.System {
				if strings.Contains(string(bl["text"]), "Earlier steps") && len(bl["cache_control"]) > 0 {
					memMarked = true
				}
			}
			if memMarked != tc.memMark {
				t.Errorf("memory block marked %v, want %v", memMarked, tc.memMark)
			}
			n, _ := breakpoints(map[string]json.RawMessage{"system": mustRaw(t, b.System)}, nil)
			for i := range b.Messages {
				for _, m := range marks(i) {
					if m != "" {
						n++
					}
				}
			}
			if n > MaxBreakpoints {
				t.Errorf("%d marks", n)
			}
		})
	}
}

func mustRaw(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMemoryBlockShape: with swc's marks on, the memory is a text block
// after the system's whether it carries the mark or the mark went to a
// stub, so the system's content is the same either way (the system's
// own block marked, TestSystemCacheMark); with them off it is appended
// to a string system.
func TestMemoryBlockShape(t *testing.T) {
	for _, tc := range []struct {
		name  string
		off   bool
		stubs bool
		want  string
	}{
		{"marked memory", false, false, `[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}},{"type":"text","text":"mem","cache_control":{"type":"ephemeral"}}]`},
		{"the mark on a stub", false, true, `[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}},{"type":"text","text":"mem"}]`},
		{"marks off", true, true, `"sys\n\nmem"`},
	} {
		body := `{"model":"c","system":"sys","messages":[{"role":"user","content":"task"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"sh","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out"}]}]}`
		in, err := Parse([]byte(body), Anthropic)
		if err != nil {
			t.Fatal(err)
		}
		var outs []string
		if tc.stubs {
			outs = []string{"out"}
		}
		got := spliceStubs(t, in, Output{Memory: "mem", NoCacheMark: tc.off}, "[swc:h0 stub]", outs...)
		var b struct {
			System json.RawMessage `json:"system"`
		}
		if err := json.Unmarshal(got, &b); err != nil || string(b.System) != tc.want {
			t.Errorf("%s: system %s, want %s", tc.name, b.System, tc.want)
		}
	}
}

// messageContents returns the content of each message of a Messages
// request body.
func messageContents(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var b struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	out := make([]json.RawMessage, len(b.Messages))
	for i, m := range b.Messages {
		out[i] = m.Content
	}
	return out
}

// spliceStubs splices in with every message kept, those whose content is
// one of outputs rewritten to stub, and out's memory and marks setting.
func spliceStubs(t *testing.T, in *Input, out Output, stub string, outputs ...string) []byte {
	t.Helper()
	out.Rewritten = map[int]string{}
	for i, m := range in.Messages {
		if slices.Contains(outputs, m.Content) {
			out.Rewritten[i], m.Content = stub, stub
		}
		out.Messages = append(out.Messages, m)
		out.Source = append(out.Source, i)
	}
	got, err := Splice(in, out)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestStubCacheMarkBesideResults: when the last stub is the text block a
// rewrite of what sat beside a tool_result became (Claude Code's document
// block after a PDF's result), the mark goes on that block, after the
// results.
func TestStubCacheMarkBesideResults(t *testing.T) {
	body := `{"model":"c","max_tokens":9,"system":"s","messages":[{"role":"user","content":"task"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"sh","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"output of t1"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"a.pdf"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"PDF file read: a.pdf"},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t3","name":"sh","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"output of t3","cache_control":{"type":"ephemeral"}}]}]}`
	in, err := Parse([]byte(body), Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	got := spliceStubs(t, in, Output{}, "[swc:h0 stub]", "output of t1", "[document]")
	contents := messageContents(t, got)
	blocks := func(i int) []map[string]json.RawMessage {
		var c []map[string]json.RawMessage
		json.Unmarshal(contents[i], &c)
		return c
	}
	if c := blocks(4); len(c) != 2 || string(c[0]["type"]) != `"tool_result"` || string(c[1]["cache_control"]) != `{"type":"ephemeral"}` {
		t.Errorf("the stub beside the result is not the marked block after it: %s", got)
	}
	if c := blocks(2); len(c) != 1 || len(c[0]["cache_control"]) > 0 {
		t.Errorf("the earlier stub is marked: %s", got)
	}
}

// TestStubCacheMarkInUserText: a tool loop whose results come back as
// user text (Cline's "[read_file for 'a.ts'] Result:" message, a string
// or a list of text blocks) has its stubs there: the last one is written
// as one text block and takes the mark, the earlier one is a text block
// too (so the prefix it is part of has the same bytes, marked or not).
func TestStubCacheMarkInUserText(t *testing.T) {
	body := `{"model":"c","max_tokens":9,"system":"s","messages":[{"role":"user","content":"task"},` +
		`{"role":"assistant","content":"<read_file>\n<path>a.ts</path>\n</read_file>"},` +
		`{"role":"user","content":"[read_file for 'a.ts'] Result:\nout of a"},` +
		`{"role":"assistant","content":[{"type":"text","text":"<read_file>\n<path>b.ts</path>\n</read_file>"}]},` +
		`{"role":"user","content":[{"type":"text","text":"[read_file for 'b.ts'] Result:"},{"type":"text","text":"out of b"},{"type":"text","text":"<environment_details>x</environment_details>"}]},` +
		`{"role":"assistant","content":"<read_file>\n<path>c.ts</path>\n</read_file>"},` +
		`{"role":"user","content":[{"type":"text","text":"[read_file for 'c.ts'] Result:\nout of c","cache_control":{"type":"ephemeral"}}]}]}`
	in, err := Parse([]byte(body), Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	out := Output{Rewritten: map[int]string{}}
	for i, m := range in.Messages {
		if m.Role == swc.RoleUser && (strings.Contains(m.Content, "out of a") || strings.Contains(m.Content, "out of b")) {
			out.Rewritten[i], m.Content = "[swc:h0 stub]", "[swc:h0 stub]"
		}
		out.Messages = append(out.Messages, m)
		out.Source = append(out.Source, i)
	}
	if len(out.Rewritten) != 2 {
		t.Fatalf("%d messages rewritten, want 2: %+v", len(out.Rewritten), in.Messages)
	}
	got, err := Splice(in, out)
	if err != nil {
		t.Fatal(err)
	}
	contents := messageContents(t, got)
	for _, c := range []struct {
		msg  int
		want string
	}{
		{2, `[{"type":"text","text":"[swc:h0 stub]"}]`},
		{4, `[{"type":"text","text":"[swc:h0 stub]","cache_control":{"type":"ephemeral"}}]`},
		{6, `[{"type":"text","text":"[read_file for 'c.ts'] Result:\nout of c","cache_control":{"type":"ephemeral"}}]`},
	} {
		if got := string(contents[c.msg]); got != c.want {
			t.Errorf("message %d: %s, want %s", c.msg, got, c.want)
		}
	}
}

// TestStubCacheMarkTTLInMessage: the marks of the stub's own message
// count too — a later block of it marked for an hour gives the stub's
// mark the hour; a 5-minute block before the stub and an hour's mark
// after it leave the stub unmarked; and a memory never takes an hour's
// mark after a 5-minute system mark.
func TestStubCacheMarkTTLInMessage(t *testing.T) {
	body := func(system, first, second string) string {
		return `{"model":"c","max_tokens":9,"system":` + system + `,"messages":[{"role":"user","content":"task"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"sh","input":{}},{"type":"tool_use","id":"t2","name":"sh","input":{}},{"type":"tool_use","id":"t3","name":"sh","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"one"` + first + `},` +
			`{"type":"tool_result","tool_use_id":"t2","content":"two"},` +
			`{"type":"tool_result","tool_use_id":"t3","content":"three"` + second + `}]}]}`
	}
	five, hour := `,"cache_control":{"type":"ephemeral"}`, `,"cache_control":{"type":"ephemeral","ttl":"1h"}`
	for _, tc := range []struct {
		name, body, memory string
		want               string // the stub's (t2's) mark
		memMark            string // the memory block's mark
	}{
		{"an hour's mark later in the same message", body(`"s"`, "", hour), "", `{"type":"ephemeral","ttl":"1h"}`, ""},
		{"5 minutes before in the message, an hour after", body(`"s"`, five, hour), "", "", ""},
		{"5 minutes in the system, an hour after: no hour for the memory", body(`[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}]`, "", hour), "mem", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Parse([]byte(tc.body), Anthropic)
			if err != nil {
				t.Fatal(err)
			}
			got := spliceStubs(t, in, Output{Memory: tc.memory}, "[swc:h0 stub]", "two")
			var b struct {
				System   json.RawMessage `json:"system"`
				Messages []struct {
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			var results []map[string]json.RawMessage
			if err := json.Unmarshal(got, &b); err != nil || len(b.Messages) != 3 || json.Unmarshal(b.Messages[2].Content, &results) != nil || len(results) != 3 {
				t.Fatalf("%v: %s", err, got)
			}
			if m := string(results[1]["cache_control"]); m != tc.want {
				t.Errorf("the stub's mark %q, want %q\n%s", m, tc.want, got)
			}
			if tc.memory != "" {
				var sys []map[string]json.RawMessage
				json.Unmarshal(b.System, &sys)
				if m := string(sys[len(sys)-1]["cache_control"]); m != tc.memMark {
					t.Errorf("the memory's mark %q, want %q\n%s", m, tc.memMark, got)
				}
			}
		})
	}
}

// TestStubCacheMarkNull: a stub's block that carries "cache_control": null
// gets the mark as that member's value, not as a second member.
func TestStubCacheMarkNull(t *testing.T) {
	body := `{"model":"c","max_tokens":9,"messages":[{"role":"user","content":"task"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"sh","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out","cache_control":null}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"sh","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"two"}]}]}`
	in, err := Parse([]byte(body), Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	got := string(spliceStubs(t, in, Output{}, "[swc:h0 stub]", "out"))
	if n := strings.Count(got, `"cache_control"`); n != 1 || !strings.Contains(got, `"content":"[swc:h0 stub]","cache_control":{"type":"ephemeral"}`) {
		t.Errorf("%d cache_control members:\n%s", n, got)
	}
}

// TestSystemCacheMark: with a memory, swc marks the client's last system
// block (tools and instructions stay cached when the memory changes)
// when the client marked no system block and a breakpoint is left after
// the stub's or memory's mark; the block's members as they came,
// the 1-hour TTL when a later mark has it, none when a 5-minute mark
// before it would precede an hour's.
func TestSystemCacheMark(t *testing.T) {
	five, hour := `,"cache_control":{"type":"ephemeral"}`, `,"cache_control":{"type":"ephemeral","ttl":"1h"}`
	body := func(tools, system, lastMark string) string {
		return `{"model":"c","max_tokens":9` + tools + `,"system":` + system + `,"messages":[{"role":"user","content":"task"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"sh","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"one"}]},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"sh","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"two"` + lastMark + `}]}]}`
	}
	blocks := `[{"type":"text","text":"a"}, {"text":"b" ,"type":"text"}]`
	for _, tc := range []struct {
		name, body, memory string
		stubs              []string
		off                bool
		want               string // the system as sent
	}{
		{"string system", body("", `"s"`, five), "mem", nil, false,
			`[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}},{"type":"text","text":"mem","cache_control":{"type":"ephemeral"}}]`},
		{"blocks: the last marked, its bytes kept", body("", blocks, five), "mem", []string{"one"}, false,
			`[{"type":"text","text":"a"},{"text":"b","type":"text","cache_control":{"type":"ephemeral"}},{"type":"text","text":"mem"}]`},
		{"a later hour's mark", body("", `"s"`, hour), "mem", []string{"one"}, false,
			`[{"type":"text","text":"s","cache_control":{"type":"ephemeral","ttl":"1h"}},{"type":"text","text":"mem"}]`},
		{"the client marked its system", body("", `[{"type":"text","text":"a"},{"type":"text","text":"b"`+five+`}]`, five), "mem", nil, false,
			`[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}},{"type":"text","text":"mem","cache_control":{"type":"ephemeral"}}]`},
		{"a tool's 5 minutes before an hour's", body(`,"tools":[{"name":"sh","input_schema":{}`+five+`}]`, `"s"`, hour), "mem", []string{"one"}, false,
			`[{"type":"text","text":"s"},{"type":"text","text":"mem"}]`},
		{"no breakpoint left", body(`,"tools":[{"name":"sh","input_schema":{}`+five+`},{"name":"x","input_schema":{}`+five+`}]`, `"s"`, five), "mem", []string{"one"}, false,
			`[{"type":"text","text":"s"},{"type":"text","text":"mem"}]`},
		{"no memory", body("", `"s"`, five), "", []string{"one"}, false, `"s"`},
		{"marks off", body("", `"s"`, five), "mem", []string{"one"}, true, `"s\n\nmem"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Parse([]byte(tc.body), Anthropic)
			if err != nil {
				t.Fatal(err)
			}
			got := spliceStubs(t, in, Output{Memory: tc.memory, NoCacheMark: tc.off}, "[swc:h0 stub]", tc.stubs...)
			var b struct {
				System json.RawMessage `json:"system"`
			}
			if err := json.Unmarshal(got, &b); err != nil || string(b.System) != tc.want {
				t.Errorf("system %s, want %s", b.System, tc.want)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(got, &m); err != nil {
				t.Fatal(err)
			}
			var msgs []json.RawMessage
			json.Unmarshal(m["messages"], &msgs)
			if n, _ := breakpoints(m, msgs); n > MaxBreakpoints {
				t.Errorf("%d marks: %s", n, got)
			}
		})
	}
}

// TestMemoryInTask: a memory that follows the task (a tool loop's) goes
// into the task's message as a text block after its own (a string task
// becomes a text block first), the task's last block marked when the
// client left it unmarked and a breakpoint is free, so the instructions
// and the task stay cached when the memory changes; a task swc rewrote
// sends the memory to the system instead.
func TestMemoryInTask(t *testing.T) {
	five, hour := `,"cache_control":{"type":"ephemeral"}`, `,"cache_control":{"type":"ephemeral","ttl":"1h"}`
	body := func(task, lastMark string) string {
		return `{"model":"c","max_tokens":9,"system":"s","messages":[{"role":"user","content":` + task + `},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"sh","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"one"}]},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"sh","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"two"` + lastMark + `}]}]}`
	}
	for _, tc := range []struct {
		name, body string
		stubs      []string
		rewrite    bool   // the task rewritten
		wantTask   string // the task's content as sent
		wantSystem string
	}{
		{"string task, a stub", body(`"do it"`, five), []string{"one"}, false,
			`[{"type":"text","text":"do it","cache_control":{"type":"ephemeral"}},{"type":"text","text":"mem"}]`, `"s"`},
		{"no stub: the memory marked too", body(`"do it"`, five), nil, false,
			`[{"type":"text","text":"do it","cache_control":{"type":"ephemeral"}},{"type":"text","text":"mem","cache_control":{"type":"ephemeral"}}]`, `"s"`},
		{"blocks, an hour's mark later", body(`[{"type":"text","text":"a"},{"type":"text","text":"b"}]`, hour), []string{"one"}, false,
			`[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral","ttl":"1h"}},{"type":"text","text":"mem"}]`, `"s"`},
		{"the task marked by the client", body(`[{"type":"text","text":"a"`+five+`}]`, five), []string{"one"}, false,
			`[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"mem"}]`, `"s"`},
		{"the task's 5 minutes before an hour's: none of ours", body(`[{"type":"text","text":"a"`+five+`},{"type":"text","text":"b"}]`, hour), nil, false,
			`[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b"},{"type":"text","text":"mem"}]`, `"s"`},
		{"the task rewritten: the memory in the system", body(`"do it"`, five), []string{"one"}, true,
			`[{"type":"text","text":"short"}]`, `[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}},{"type":"text","text":"mem"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Parse([]byte(tc.body), Anthropic)
			if err != nil {
				t.Fatal(err)
			}
			out := Output{Memory: "mem", Rewritten: map[int]string{}}
			for i, m := range in.Messages {
				if slices.Contains(tc.stubs, m.Content) {
					out.Rewritten[i], m.Content = "[swc:h0 stub]", "[swc:h0 stub]"
				}
				if tc.rewrite && m.Role == swc.RoleUser && m.Content == "do it" {
					out.Rewritten[i], m.Content = "short", "short"
				}
				out.Messages = append(out.Messages, m)
				out.Source = append(out.Source, i)
				if in.Origin[i] == 0 { // after the task
					out.Messages = append(out.Messages, swc.Message{Role: swc.RoleSystem, Content: "mem"})
					out.Source = append(out.Source, -1)
				}
			}
			got, err := Splice(in, out)
			if err != nil {
				t.Fatal(err)
			}
			var b struct {
				System   json.RawMessage `json:"system"`
				Messages []struct {
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(got, &b); err != nil {
				t.Fatal(err)
			}
			if string(b.Messages[0].Content) != tc.wantTask || string(b.System) != tc.wantSystem {
				t.Errorf("task %s, system %s\nwant task %s, system %s", b.Messages[0].Content, b.System, tc.wantTask, tc.wantSystem)
			}
			var m map[string]json.RawMessage
			json.Unmarshal(got, &m)
			var msgs []json.RawMessage
			json.Unmarshal(m["messages"], &msgs)
			if n, _ := breakpoints(m, msgs); n > MaxBreakpoints {
				t.Errorf("%d marks: %s", n, got)
			}
			if _, err := Parse(got, Anthropic); err != nil {
				t.Errorf("sent body does not parse: %v", err)
			}
		})
	}
}
