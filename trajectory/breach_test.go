package trajectory

import (
	"context"
	"slices"
	"testing"

	"github.com/swcmem/swc/chat"
)

func TestBreachRule(t *testing.T) {
	for in, want := range map[string]string{
		"contents[0]: a function call turn not right after a user turn":                            "a function call turn not right after a user turn",
		"contents[12]: a function call turn not right after a user turn":                           "a function call turn not right after a user turn",
		`messages[4]: tool_use "toolu_1" of messages[3] answered 2 times (want once, right after)`: `tool_use "…" of messages[#] answered # times (want once, right after)`,
		`messages[2].content[1]: tool_result after other content`:                                  "tool_result after other content",
		"body: unexpected end of JSON input":                                                       "unexpected end of JSON input",
		"no place here":                                                                            "no place here",
	} {
		if got := breachRule(in); got != want {
			t.Errorf("breachRule(%q) = %q, want %q", in, got, want)
		}
	}
	own, in := ownBreaches([]string{"contents[2]: a function call turn not right after a user turn", "contents[5]: no parts"},
		[]string{"contents[0]: a function call turn not right after a user turn"})
	if !slices.Equal(own, []string{"contents[5]: no parts"}) || len(in) != 1 {
		t.Errorf("ownBreaches: own %q, input %q", own, in)
	}
}

// TestInputBreaches: a recorded session that breaks a rule itself (a
// Gemini CLI record opening with the model's call, before any user turn)
// is replayed; what every condition inherits is the input's, not counted
// against it, and the cells say how many requests broke it as sent.
func TestInputBreaches(t *testing.T) {
	body := `{"contents":[` +
		`{"role":"model","parts":[{"functionCall":{"name":"activate_skill","args":{"name":"plan"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"activate_skill","response":{"output":"skill loaded"}}}]},` +
		`{"role":"user","parts":[{"text":"Build an expenses tracker in src/tracker.py"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"ls src"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"tracker.py\nledger_store.py"}}}]},` +
		`{"role":"model","parts":[{"text":"I will edit ledger_store.py now."}]}]}`
	tr := Trajectory{Name: "gemini-skill-first", Bodies: []Body{{Format: chat.Gemini, Data: []byte(body)}}}
	var rows []Row
	r := &Runner{Trajectories: []Trajectory{tr}, Conditions: []Condition{Truncation{}, Mask{K: 1}}, Budgets: []int{100000},
		Write: func(row Row) error { rows = append(rows, row); return nil }}
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, row := range rows {
		if len(row.Breaches) > 0 {
			t.Errorf("%s: breaches %q counted against the condition", row.Key(), row.Breaches)
		}
		if len(row.InputBreaches) == 0 {
			t.Errorf("%s: the input's breach is not reported", row.Key())
		}
	}
	s := Summarize(Settings{Budgets: []int{100000}, Conditions: []string{"truncation", "mask-1"}}, rows)
	for _, c := range s.Cells {
		if c.Breaches != 0 || c.InputBreaches != c.Requests {
			t.Errorf("%s %s: breaches %d, input breaches %d of %d requests", c.Format, c.Condition, c.Breaches, c.InputBreaches, c.Requests)
		}
	}
}
