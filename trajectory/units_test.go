package trajectory

import (
	"encoding/json"
	"testing"

	"github.com/swcmem/swc/chat"
)

// anthropicSent decodes an Anthropic body as the bench does: its prefix
// units are the system's content blocks, then the messages'.
func anthropicSent(t *testing.T, body string) *sent { return sentOf(t, body, "system") }

// sentOf decodes a body whose list is "messages", its lead field lead
// ("" for none: the units are the list's items).
func sentOf(t *testing.T, body, lead string) *sent {
	t.Helper()
	o, err := decodeObject([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	items, err := o.list("messages")
	if err != nil {
		t.Fatal(err)
	}
	return &sent{top: o, items: items, leadKey: lead}
}

// TestMarkCacheMemoryAfterTask: under Anthropic's rules, block by block,
// a memory block appended to the task's message that changes between two
// requests leaves the system and the task served from the cache when an
// earlier request marked the task's block, and nothing when none did; a
// string system and its one text block are the same prefix.
func TestMarkCacheMemoryAfterTask(t *testing.T) {
	const sys = `"system":[{"type":"text","text":"You are an agent."}]`
	task := func(mark bool, memory string) string {
		cc := ""
		if mark {
			cc = `,"cache_control":{"type":"ephemeral"}`
		}
		return `{"role":"user","content":[{"type":"text","text":"Fix the bug."` + cc + `},{"type":"text","text":"` + memory + `"}]}`
	}
	turn := func(n string, last bool) string {
		cc := ""
		if last {
			cc = `,"cache_control":{"type":"ephemeral"}`
		}
		return `{"role":"assistant","content":[{"type":"tool_use","id":"t` + n + `","name":"sh","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t` + n + `","content":"out ` + n + `"` + cc + `}]}`
	}
	first := `{"model":"m","system":"You are an agent.","messages":[{"role":"user","content":"Fix the bug."},` + turn("1", true) + `]}`
	for _, marked := range []bool{true, false} {
		var mc markCache
		mc.serve(anthropicSent(t, first), "messages")
		second := `{"model":"m",` + sys + `,"messages":[` + task(marked, "[… 1 earlier call; h0000000001]") + `,` + turn("2", false) + `,` + turn("3", true) + `]}`
		mc.serve(anthropicSent(t, second), "messages")
		third := `{"model":"m",` + sys + `,"messages":[` + task(marked, "[… 2 earlier calls; h0000000001 h0000000002]") + `,` + turn("3", false) + `,` + turn("4", true) + `]}`
		cur := anthropicSent(t, third)
		got := mc.serve(cur, "messages")
		want := 0
		if u := cur.prefixUnits(); marked {
			want = u[0].size + u[1].size // the system and the task
		}
		if got != want {
			t.Errorf("task marked %v: %d bytes served after the memory changed, want %d", marked, got, want)
		}
	}
	// cachedPrefix counts the same units: the system and the task's
	// block before the memory, and every unit's bytes in the total.
	prev := anthropicSent(t, `{"model":"m",`+sys+`,"messages":[`+task(true, "a")+`,`+turn("2", true)+`]}`)
	cur := anthropicSent(t, `{"model":"m","system":"You are an agent.","messages":[`+task(false, "b")+`,`+turn("2", true)+`]}`)
	cached, total := cachedPrefix(prev, cur, "messages")
	if served := cur.prefixUnits()[0].size + cur.prefixUnits()[1].size; cached != served {
		t.Errorf("cachedPrefix: %d bytes, want %d (the system and the task)", cached, served)
	}
	n := 0
	for _, u := range cur.prefixUnits() {
		n += u.size
	}
	if total != n || len(cur.prefixUnits()) != 5 {
		t.Errorf("cachedPrefix: total %d over %d units, want %d over 5", total, len(cur.prefixUnits()), n)
	}
	if prefixStable(prev, cur, "messages") {
		t.Error("a changed memory block taken for a stable prefix")
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(first), &m) != nil || len(blockUnits(nil, "user", m["system"], false)) != 1 {
		t.Error("a string system is not one text block")
	}
}

// TestGeminiUnits: in Gemini form the units are systemInstruction's parts
// (either spelling), then each content's, so a memory part after the
// task's that changed leaves the instruction and the task a cached
// prefix.
func TestGeminiUnits(t *testing.T) {
	decode := func(body string) *sent {
		rp := &Replay{codec: codecs["gemini"]}
		return rp.decode([]byte(body))
	}
	for _, key := range []string{"systemInstruction", "system_instruction"} {
		body := func(memory string) string {
			return `{"` + key + `":{"parts":[{"text":"sys"}]},"contents":[{"role":"user","parts":[{"text":"env"},{"text":"go"},{"text":"` + memory + `"}]},` +
				`{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"x"}}}]}]}`
		}
		prev, cur := decode(body("h0000000001")), decode(body("h0000000001 h0000000002"))
		cached, total := cachedPrefix(prev, cur, "contents")
		u := cur.prefixUnits()
		if len(u) != 6 {
			t.Fatalf("%s: %d units, want 6 (the instruction's part, the task's three, the call, the response)", key, len(u))
		}
		if want := u[0].size + u[1].size + u[2].size; cached != want || total <= cached {
			t.Errorf("%s: cached %d of %d, want %d (the instruction and the task's own parts)", key, cached, total, want)
		}
	}
}

// TestOpenAIUnits: in Chat Completions form the units are each message's
// content parts and what else it holds (a turn's tool_calls), so a memory
// part appended to the task leaves the system and the task's own text a
// cached prefix, and another call is another unit.
func TestOpenAIUnits(t *testing.T) {
	decode := func(body string) *sent { return (&Replay{codec: codecs["openai"]}).decode([]byte(body)) }
	body := func(memory, call string) string {
		return `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"do it"},{"type":"text","text":"` + memory + `"}]},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"` + call + `","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"out"}]}`
	}
	prev := decode(body("h0000000001", "sh"))
	u := prev.prefixUnits()
	if len(u) != 6 { // sys, the task's two parts, the call, the output and its id
		t.Fatalf("%d units, want 6", len(u))
	}
	cached, _ := cachedPrefix(prev, decode(body("h0000000001 h0000000002", "sh")), "messages")
	if want := u[0].size + u[1].size; cached != want {
		t.Errorf("memory changed: cached %d, want %d (the system and the task's text)", cached, want)
	}
	cached, _ = cachedPrefix(prev, decode(body("h0000000001", "grep")), "messages")
	if want := u[0].size + u[1].size + u[2].size; cached != want {
		t.Errorf("another call: cached %d, want %d (up to the call)", cached, want)
	}
}

// TestOpenAIParagraphUnits: in Chat Completions form a string content's
// paragraphs are units, so a memory appended to the task after a blank
// line leaves the task cached; the units' sizes add up to the text
// block's bytes, as one unit's did.
func TestOpenAIParagraphUnits(t *testing.T) {
	body := func(task string) string {
		return `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":` + task + `},{"role":"assistant","content":"ok"}]}`
	}
	openAI := func(b string) *sent {
		s := sentOf(t, b, "")
		s.blocks, s.paras = codecs[chat.OpenAI].blocks, codecs[chat.OpenAI].paragraphs
		return s
	}
	prev := openAI(body(`"fix the bug\n\nMEM one"`))
	cur := openAI(body(`"fix the bug\n\nMEM two"`))
	units := cur.prefixUnits()
	if len(units) != 4 {
		t.Fatalf("%d units, want 4 (system, the task's two paragraphs, the turn)", len(units))
	}
	b, _ := json.Marshal(map[string]string{"type": "text", "text": "fix the bug\n\nMEM two"})
	if got := units[1].size + units[2].size; got != len(b) {
		t.Errorf("the task's units size %d bytes, the text block %d", got, len(b))
	}
	cached, total := cachedPrefix(prev, cur, "messages")
	if want := units[0].size + units[1].size; cached != want || total <= cached {
		t.Errorf("cached %d of %d bytes, want the system and the task's first paragraph (%d)", cached, total, want)
	}
}
