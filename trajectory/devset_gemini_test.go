package trajectory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/skipnote"
	"github.com/swcmem/swc/memory"
)

// geminiOf converts a Chat Completions request body to the Gemini API's
// form of the same run: system messages become systemInstruction's
// parts; a user message a user content of one text part; an assistant
// message a model content of its text and one functionCall part per tool
// call (args its arguments byte for byte, id the call's when ids is set);
// a run of tool messages one user content of functionResponse parts
// ({"output": content}, the shape Gemini CLI sends), in their order.
// Every text reads back through chat as the OpenAI form's does.
func geminiOf(body []byte, ids bool) ([]byte, error) {
	var req struct {
		Messages []openAIMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	text := func(raw json.RawMessage) (string, error) {
		var s string
		if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &s) == nil {
			return s, nil
		}
		var parts []struct{ Type, Text string }
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", err
		}
		var b bytes.Buffer
		for i, p := range parts {
			if p.Type != "text" {
				return "", fmt.Errorf("a %s part", p.Type)
			}
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
		return b.String(), nil
	}
	str := func(s string) string { b, _ := marshal(s); return string(b) }
	var system, contents []string
	var results []string         // the function responses of the tool messages so far
	names := map[string]string{} // call id → function name
	flush := func() {
		if len(results) > 0 {
			contents = append(contents, `{"role":"user","parts":[`+join(results)+`]}`)
			results = nil
		}
	}
	for i, m := range req.Messages {
		s, err := text(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %v", i, err)
		}
		if m.Role == "tool" {
			id := ""
			if ids {
				id = `"id":` + str(m.ToolCallID) + `,`
			}
			results = append(results, `{"functionResponse":{`+id+`"name":`+str(names[m.ToolCallID])+`,"response":{"output":`+str(s)+`}}}`)
			continue
		}
		flush()
		switch m.Role {
		case "system":
			if len(contents) > 0 {
				return nil, fmt.Errorf("messages[%d]: a system message after the conversation began", i)
			}
			system = append(system, `{"text":`+str(s)+`}`)
		case "user":
			contents = append(contents, `{"role":"user","parts":[{"text":`+str(s)+`}]}`)
		case "assistant":
			var parts []string
			if s != "" {
				parts = append(parts, `{"text":`+str(s)+`}`)
			}
			for _, tc := range m.ToolCalls {
				args := bytes.TrimSpace([]byte(tc.Function.Arguments))
				if !json.Valid(args) || len(args) == 0 || args[0] != '{' {
					return nil, fmt.Errorf("messages[%d]: arguments %q are not a JSON object", i, args)
				}
				id := ""
				if ids {
					id = `"id":` + str(tc.ID) + `,`
				}
				names[tc.ID] = tc.Function.Name
				parts = append(parts, `{"functionCall":{`+id+`"name":`+str(tc.Function.Name)+`,"args":`+string(args)+`}}`)
			}
			contents = append(contents, `{"role":"model","parts":[`+join(parts)+`]}`)
		default:
			return nil, fmt.Errorf("messages[%d]: role %q", i, m.Role)
		}
	}
	flush()
	out := `{"contents":[` + join(contents) + `]`
	if len(system) > 0 {
		out += `,"systemInstruction":{"parts":[` + join(system) + `]}`
	}
	return []byte(out + `}`), nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func join(parts []string) string {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p)
	}
	return b.String()
}

// TestDevSetGemini replays two dev-set runs (the OpenHands run with tool
// calls, and a text-acting mini-swe-agent run, its observations user
// messages) in their OpenAI form and converted to the Gemini form (geminiOf: with the calls' ids, and
// without any, as the Gemini API sends calls, chat then pairing responses
// by name and position) under truncation, mask-5, trim-half and swc at
// 2,000 and 8,000 tokens: every request replays in every form, every
// body sent is valid (0 breaches), none is refused, none is over its raw
// tokens, and each form reads the same requests (the same targets and raw
// tokens). The baselines' sent tokens and retained targets are the OpenAI
// form's exactly. swc's retained and recoverable targets are too with the
// ids kept, its sent tokens the same or MessageOverhead fewer: the OpenAI
// writer sends the memory as a system message of its own, the Gemini one
// appends it to systemInstruction, which reads back as one message.
// Without ids swc's FRR, recoverable FRR and sent/raw are the OpenAI
// form's within 0.02 (they are equal on this run; its sent tokens differ
// by a few per request): a stub's handle hashes the call id
// ("gemini:<content>:<part>" there), and another hash tokenizes to
// another count, so the budget falls a little differently.
func TestDevSetGemini(t *testing.T) {
	for _, run := range []struct {
		file     string
		requests int
	}{
		{"openhands_llama-4-maverick_ponylang__ponyc-4595.json", 23}, // tool calls
		{"mini_django__django-16255.json", 17},                       // text acting: observations in user contents
	} {
		t.Run(run.file, func(t *testing.T) { checkGeminiForm(t, run.file, run.requests) })
	}
}

// checkGeminiForm is TestDevSetGemini on dev-set run f of n requests.
func checkGeminiForm(t *testing.T, f string, n int) {
	data, err := os.ReadFile(filepath.Join(devDir, f))
	if err != nil {
		abs, _ := filepath.Abs(devDir)
		skipnote.Skip(t, "trajectories", "the developer set is not at "+abs+", so the Gemini form of its runs is not replayed")
	}
	tr, err := parseFile(f, data)
	if err != nil {
		t.Fatal(err)
	}
	var openai []byte
	for _, b := range tr.Bodies {
		if b.Format == chat.OpenAI {
			openai = b.Data
		}
	}
	forms := map[string][]byte{}
	for name, ids := range map[string]bool{"gemini-ids": true, "gemini": false} {
		if forms[name], err = geminiOf(openai, ids); err != nil {
			t.Fatal(err)
		}
	}
	base, err := memory.New(memory.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	budgets := []int{2000, 8000}
	conds := []Condition{Truncation{}, Mask{K: 5}, TrimHalf{}, NewSWC("swc", base)}
	run := func(format chat.Format, data []byte) []Row {
		var rows []Row
		r := &Runner{Trajectories: []Trajectory{{Name: tr.Name, Bodies: []Body{{Format: format, Data: data}}}}, Budgets: budgets, Conditions: conds,
			Write: func(row Row) error { rows = append(rows, row); return nil }}
		if err := r.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	want := run(chat.OpenAI, openai)
	if len(want) != n*len(budgets)*len(conds) {
		t.Fatalf("openai: %d rows, want %d", len(want), n*len(budgets)*len(conds))
	}
	cells := func(rows []Row) map[string]Cell {
		out := map[string]Cell{}
		names := make([]string, len(conds))
		for i, c := range conds {
			names[i] = c.Name()
		}
		for _, c := range Summarize(Settings{Budgets: budgets, Conditions: names}, rows).Cells {
			out[fmt.Sprintf("%s@%d", c.Condition, c.Budget)] = c
		}
		return out
	}
	wantCells := cells(want)
	swcDiff := map[string][]int{} // per form, swc's sent tokens less the OpenAI form's, per compressed request
	for _, name := range []string{"gemini-ids", "gemini"} {
		rows := run(chat.Gemini, forms[name])
		if len(rows) != len(want) {
			t.Fatalf("%s: %d rows, want %d", name, len(rows), len(want))
		}
		for i, row := range rows {
			w := want[i]
			if row.Request != w.Request || row.Condition != w.Condition || row.Budget != w.Budget {
				t.Fatalf("%s: row %d is %s, want %s", name, i, row.Key(), w.Key())
			}
			if row.Targets != w.Targets || row.RawTokens != w.RawTokens {
				t.Errorf("%s: %s: %d targets of %d raw tokens, openai %d of %d", name, row.Key(), row.Targets, row.RawTokens, w.Targets, w.RawTokens)
			}
			if len(row.Breaches) > 0 || row.Refused != "" {
				t.Errorf("%s: %s: breaches %q, refused %q", name, row.Key(), row.Breaches, row.Refused)
			}
			if row.SentTokens > row.RawTokens {
				t.Errorf("%s: %s: sent %d tokens of %d", name, row.Key(), row.SentTokens, row.RawTokens)
			}
			switch {
			case row.Condition != "swc":
				if row.SentTokens != w.SentTokens || row.Retained != w.Retained || !bytes.Equal(mustJSON(row.Lost), mustJSON(w.Lost)) {
					t.Errorf("%s: %s: sent %d, %d retained; openai %d, %d", name, row.Key(), row.SentTokens, row.Retained, w.SentTokens, w.Retained)
				}
			case w.SentTokens == w.RawTokens:
				if row.SentTokens != w.SentTokens || row.Retained != w.Retained {
					t.Errorf("%s: %s: uncompressed: sent %d, %d retained; openai %d, %d", name, row.Key(), row.SentTokens, row.Retained, w.SentTokens, w.Retained)
				}
			default:
				d := row.SentTokens - w.SentTokens
				swcDiff[name] = append(swcDiff[name], d)
				if name == "gemini-ids" && (d > 0 || d < -2*MessageOverhead || row.Retained != w.Retained || row.Recoverable != w.Recoverable) {
					t.Errorf("%s: %s: sent %d, %d retained, %d recoverable; openai %d, %d, %d", name, row.Key(), row.SentTokens, row.Retained, row.Recoverable, w.SentTokens, w.Retained, w.Recoverable)
				}
			}
		}
		for k, c := range cells(rows) {
			w := wantCells[k]
			t.Logf("%s %s: FRR %.3f (openai %.3f), recoverable %.3f (%.3f), sent/raw %.3f (%.3f) over %d requests with targets",
				name, k, c.FRR, w.FRR, c.RecFRR, w.RecFRR, c.Ratio, w.Ratio, c.FRRN)
			if math.Abs(c.FRR-w.FRR) > 0.02 || math.Abs(c.RecFRR-w.RecFRR) > 0.02 || math.Abs(c.Ratio-w.Ratio) > 0.02 {
				t.Errorf("%s %s: FRR %v recoverable %v sent/raw %v; openai %v %v %v", name, k, c.FRR, c.RecFRR, c.Ratio, w.FRR, w.RecFRR, w.Ratio)
			}
		}
		t.Logf("%s: swc's sent tokens less the openai form's, per compressed request: %v", name, swcDiff[name])
	}
}
