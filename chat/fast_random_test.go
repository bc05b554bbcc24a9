package chat

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// bodyGen writes random request bodies from the pieces clients send and
// the oddities the general parsers accept or reject: every field of
// either format in any order, strings with escapes, nulls, wrong types,
// unknown, case-folded and repeated keys.
type bodyGen struct {
	r *rand.Rand
	b strings.Builder
}

func (g *bodyGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *bodyGen) p(n int) bool             { return g.r.IntN(100) < n }

func (g *bodyGen) str() string {
	return g.pick(`""`, `"hi"`, `"a \"b\" c"`, `"caf\u00e9"`, `"\ud83d\ude00!"`, `"\ud83d"`, `"x\ny\t"`,
		`"\u003c&\u003e"`, `"ünï 😀"`, `"2024-05-07T14:00:00Z"`, `"1715090400"`, `" 2024-05-08T14:00:00+02:00 "`,
		`"user"`, `"text"`, `"a\/b\\c"`, `"Maya"`, `"\u0000"`, `"{\"city\":\"Berlin\"}"`)
}

func (g *bodyGen) any() string {
	switch g.r.IntN(10) {
	case 0:
		return "null"
	case 1:
		return g.pick("true", "false")
	case 2:
		return g.pick("0", "-1.5e3", "1715090400", "1e400", "12", "1715090400.25")
	case 3:
		return g.pick("{}", "[]", `{"a":[1,{"b":null}],"c":"d"}`, `[1,"x",null]`)
	}
	return g.str()
}

// obj writes an object of the given members in random order, sometimes
// with an unknown key, a key in other case or a repeated one.
func (g *bodyGen) obj(members map[string]func() string) string {
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	// map order is random but not seeded: sort, then shuffle with g.r.
	sortStrings(keys)
	g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	var parts []string
	for _, k := range keys {
		name := k
		if g.p(1) {
			name = strings.ToUpper(k[:1]) + k[1:]
		}
		parts = append(parts, fmt.Sprintf("%q:%s", name, members[k]()))
		if g.p(1) {
			parts = append(parts, fmt.Sprintf("%q:%s", k, members[k]()))
		}
	}
	if g.p(15) {
		parts = append(parts, `"extra":`+g.any())
	}
	if g.p(1) {
		parts = append(parts, `"r\u006fle":"user"`)
	}
	sep := g.pick(",", ", ", ",\n ")
	return "{" + strings.Join(parts, sep) + "}"
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// some returns members keeping each with probability pct, drawn in key
// order so that the bodies depend on the seed alone.
func (g *bodyGen) some(pct int, m map[string]func() string) map[string]func() string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	out := map[string]func() string{}
	for _, k := range keys {
		if g.p(pct) {
			out[k] = m[k]
		}
	}
	return out
}

func (g *bodyGen) meta(m map[string]func() string) {
	for k, v := range g.some(12, map[string]func() string{
		"id":        func() string { return g.pick(`"m1"`, "7", "null", `"x\u0041"`, "{}") },
		"session":   func() string { return g.pick(`"S1"`, "2", "null", "true") },
		"timestamp": func() string { return g.pick(`"2024-05-07T14:00:00Z"`, "null", `"2024-05-07"`, "5") },
		"created_at": func() string {
			return g.pick("1715090400", "1715090400.5", `"1715090400"`, `"2024-05-07T14:00:00Z"`, "1e400", "-3", "null", "[]")
		},
	}) {
		m[k] = v
	}
}

func (g *bodyGen) role(usual ...string) string {
	if g.p(97) {
		return `"` + g.pick(usual...) + `"`
	}
	return g.pick(`"robot"`, "null", "5", `"us\u0065r"`, `"system"`, `"tool"`)
}

func (g *bodyGen) oaMessage(i int) string {
	m := map[string]func() string{
		"role": func() string { return g.role("user", "assistant", "system", "developer") },
	}
	if g.p(97) {
		m["content"] = func() string {
			switch g.r.IntN(8) {
			case 0:
				return "null"
			case 1, 2:
				var parts []string
				for range g.r.IntN(4) {
					parts = append(parts, g.obj(g.some(80, map[string]func() string{
						"type": func() string {
							return g.pick(`"text"`, `"text"`, `"refusal"`, `"image_url"`, "null", `""`, `"te\u0078t"`, "3",
								`"input_audio"`, `"file"`, `"future_part"`)
						},
						"text":    func() string { return g.pick(g.str(), g.str(), "null", "1", "{}") },
						"refusal": func() string { return g.pick(g.str(), "null", "[]") },
					})))
				}
				if g.p(5) {
					parts = append(parts, g.pick("null", `"x"`))
				}
				return "[" + strings.Join(parts, ",") + "]"
			case 3:
				if g.p(30) {
					return g.any()
				}
			}
			return g.str()
		}
	}
	for k, v := range g.some(15, map[string]func() string{
		"name":         func() string { return g.pick(`"Maya"`, `"Jo"`, "null", "4", `"M\u0061ya"`) },
		"refusal":      func() string { return g.pick(`"no"`, "null", `""`) },
		"tool_call_id": func() string { return g.pick("null", `""`) },
		"speaker":      func() string { return g.pick("null", "null", `"x"`) },
		"tool_calls":   func() string { return g.pick("null", "[]", "[null]") },
	}) {
		m[k] = v
	}
	g.meta(m)
	return g.obj(m)
}

// oaToolTurn writes an assistant message calling tools and their results.
func (g *bodyGen) oaToolTurn(i int) []string {
	n := 1 + g.r.IntN(2)
	var calls, results []string
	for c := range n {
		id := fmt.Sprintf(`"c%d_%d"`, i, c)
		calls = append(calls, g.obj(g.some(95, map[string]func() string{
			"id":   func() string { return id },
			"type": func() string { return g.pick(`"function"`, `"function"`, `"custom"`, "null", `""`) },
			"function": func() string {
				if g.p(5) {
					return g.pick("null", "[]")
				}
				return g.obj(g.some(90, map[string]func() string{
					"name":      func() string { return g.pick(`"weather"`, `"w\u0065ather"`, "null") },
					"arguments": func() string { return g.pick(`"{\"city\":\"Berlin\"}"`, `""`, "null", "{}") },
				}))
			},
		})))
		results = append(results, g.obj(map[string]func() string{
			"role":         func() string { return `"tool"` },
			"tool_call_id": func() string { return id },
			"content":      func() string { return g.pick(`"12°C"`, `[{"type":"text","text":"r"}]`, "null") },
		}))
	}
	am := map[string]func() string{
		"role":       func() string { return `"assistant"` },
		"tool_calls": func() string { return "[" + strings.Join(calls, ",") + "]" },
	}
	if g.p(50) {
		am["content"] = func() string { return g.pick("null", `""`, `"Checking."`) }
	}
	return append([]string{g.obj(am)}, results...)
}

func (g *bodyGen) anBlock(inner bool) string {
	m := g.some(90, map[string]func() string{
		"type": func() string {
			if inner {
				return g.pick(`"text"`, `"image"`, "null", `"document"`, `"search_result"`)
			}
			return g.pick(`"text"`, `"text"`, `"image"`, `"document"`, "null", `"thinking"`, `"redacted_thinking"`,
				`"search_result"`, `"server_tool_use"`, `"web_search_tool_result"`, `"mcp_tool_use"`, `"mcp_tool_result"`,
				`"container_upload"`, `"future_block"`)
		},
		"text": func() string { return g.pick(g.str(), g.str(), "null", "5", `{"x":1}`) },
	})
	for k, v := range g.some(6, map[string]func() string{
		"id":          func() string { return g.pick(`"b"`, "null", "3") },
		"name":        func() string { return g.pick(`"n"`, "null") },
		"input":       g.any,
		"tool_use_id": func() string { return g.pick(`"t"`, "null") },
		"is_error":    func() string { return g.pick("true", "false", "null", `"yes"`) },
		"content": func() string {
			if inner {
				return g.any()
			}
			return g.pick(g.str(), "null", g.any(), "["+g.anBlock(true)+"]")
		},
		"source":    func() string { return `{"type":"base64","data":"AA=="}` },
		"signature": func() string { return `"EqQBCkYIBxgCKkD"` },
		"thinking":  func() string { return g.pick(g.str(), "7") },
	}) {
		m[k] = v
	}
	return g.obj(m)
}

func (g *bodyGen) anContent() string {
	switch g.r.IntN(6) {
	case 0:
		if g.p(20) {
			return g.pick("null", "5", "{}")
		}
		return g.str()
	case 1, 2:
		return g.str()
	}
	var blocks []string
	for range g.r.IntN(4) {
		blocks = append(blocks, g.anBlock(false))
	}
	if g.p(5) {
		blocks = append(blocks, g.pick("null", `"x"`))
	}
	return "[" + strings.Join(blocks, ",") + "]"
}

// anToolTurn writes an assistant message using tools and the user
// message with their results.
func (g *bodyGen) anToolTurn(i int) []string {
	n := 1 + g.r.IntN(2)
	var uses, results []string
	for c := range n {
		id := fmt.Sprintf(`"t%d_%d"`, i, c)
		uses = append(uses, g.obj(g.some(97, map[string]func() string{
			"type":  func() string { return `"tool_use"` },
			"id":    func() string { return id },
			"name":  func() string { return g.pick(`"weather"`, "null") },
			"input": func() string { return g.pick(`{"city":"Berlin"}`, " { } ", "null", `"x"`, "[1]") },
		})))
		results = append(results, g.obj(g.some(97, map[string]func() string{
			"type":        func() string { return `"tool_result"` },
			"tool_use_id": func() string { return id },
			"content": func() string {
				if g.p(10) {
					return g.pick(`[{"type":"text","text":null}]`, `[null]`, "{}", `[{"type":"text","text":"a","is_error":1}]`)
				}
				return g.pick(`"12°C"`, "null", `[{"type":"text","text":"r"},{"type":"image"}]`)
			},
			"is_error": func() string { return g.pick("true", "false", "null") },
		})))
	}
	var ublocks []string
	ublocks = append(ublocks, results...)
	if g.p(40) {
		ublocks = append(ublocks, `{"type":"text","text":"and?"}`)
	}
	if g.p(5) {
		ublocks = append([]string{`{"type":"text","text":"first"}`}, ublocks...)
	}
	am := fmt.Sprintf(`{"role":"assistant","content":[%s]}`, strings.Join(uses, ","))
	um := fmt.Sprintf(`{"role":"user","content":[%s]}`, strings.Join(ublocks, ","))
	return []string{am, um}
}

func (g *bodyGen) anMessage(i int) string {
	m := map[string]func() string{
		"role": func() string { return g.role("user", "assistant", "user", "assistant", "system") },
	}
	if g.p(97) {
		m["content"] = g.anContent
	}
	g.meta(m)
	return g.obj(m)
}

// body returns a random body meant for format f.
func (g *bodyGen) body(f Format) []byte {
	var msgs []string
	for i := range 1 + g.r.IntN(6) {
		switch {
		case f == OpenAI && g.p(20):
			msgs = append(msgs, g.oaToolTurn(i)...)
		case f == Anthropic && g.p(20):
			msgs = append(msgs, g.anToolTurn(i)...)
		case f == OpenAI:
			msgs = append(msgs, g.oaMessage(i))
		default:
			msgs = append(msgs, g.anMessage(i))
		}
	}
	arr := "[" + strings.Join(msgs, g.pick(",", ",\n")) + "]"
	if g.p(15) {
		return []byte(arr)
	}
	top := map[string]func() string{
		"model":    func() string { return `"m"` },
		"messages": func() string { return arr },
	}
	if g.p(40) {
		top["system"] = func() string {
			return g.pick(`"be brief"`, `""`, "null", `[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b"}]`, `[{"type":"image"}]`, "5")
		}
	}
	if g.p(20) {
		top["tools"] = func() string { return `[{"name":"weather","input_schema":{"type":"object"}}]` }
	}
	return []byte(g.obj(top))
}

// TestParseFastRandomBodies compares Parse with the general parsers on
// random bodies of both formats, each parsed as both formats.
func TestParseFastRandomBodies(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 600
	}
	g := &bodyGen{r: rand.New(rand.NewPCG(7, 26))}
	fast, ok := map[Format]int{}, map[Format]int{}
	for i := range n {
		gen := []Format{OpenAI, Anthropic}[i%2]
		data := g.body(gen)
		for _, f := range []Format{OpenAI, Anthropic} {
			if sameParse(t, fmt.Sprintf("random %d", i), data, f) {
				fast[f]++
			}
			if f == gen {
				if _, err := Parse(data, f); err == nil {
					ok[f]++
				}
			}
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d bodies: fast path took %v, parsed without error %v", n, fast, ok)
	if fast[OpenAI] < n/10 || fast[Anthropic] < n/10 || ok[OpenAI] < n/10 || ok[Anthropic] < n/10 {
		t.Errorf("too few bodies took the fast path (%v) or parsed (%v) to compare", fast, ok)
	}
}
