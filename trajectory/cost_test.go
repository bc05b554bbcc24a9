package trajectory

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/swcmem/swc/chat"
)

func TestPriceRuleCost(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		format                chat.Format
		tokens, cached, total int
		want                  float64
	}{
		{"anthropic, nothing cached: written", chat.Anthropic, 1000, 0, 400, 1250},
		{"anthropic, all cached: read", chat.Anthropic, 1000, 400, 400, 100},
		{"openai, half cached", chat.OpenAI, 1000, 200, 400, 550},
		{"openai, a run's first request (no list measured)", chat.OpenAI, 1000, 0, 0, 1000},
		{"gemini as openai", chat.Gemini, 1000, 400, 400, 100},
		{"more cached than listed counts as all", chat.Responses, 10, 9, 3, 1},
	} {
		if got := priceRuleOf(tc.format).cost(tc.tokens, tc.cached, tc.total); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %.3f, want %.3f", tc.name, got, tc.want)
		}
	}
}

// churn sends each request with its first observation changed: no
// request is a cache hit past the messages before it.
type churn struct{}

func (churn) Name() string { return "churn" }

func (churn) Compress(_ context.Context, q *Request, _ int) ([]byte, error) {
	p := newPlan(q)
	if obs := p.observations(); len(obs) > 0 {
		p.rewrite(obs[0], fmt.Sprintf("request %d", q.Index))
	}
	return p.body()
}

// TestCostRatio: a condition that sends every request as the agent did
// costs what the requests as sent do (ratio 1, each request's cost its
// raw cost); a run's first request is all written; one that misses the
// cache from its first observation on pays more than the raw requests,
// which read all but the newest messages from the cache.
func TestCostRatio(t *testing.T) {
	var rows []Row
	r := &Runner{Trajectories: loadTiny(t), Conditions: []Condition{Truncation{}, churn{}}, Budgets: []int{100000},
		Write: func(row Row) error { rows = append(rows, row); return nil }}
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.Refused != "" || row.RawCost <= 0 {
			t.Fatalf("%s: refused %q, raw cost %.1f", row.Key(), row.Refused, row.RawCost)
		}
		rule := priceRuleOf(chat.Format(row.Format))
		switch row.Condition {
		case "truncation":
			if math.Abs(row.Cost-row.RawCost) > 1e-9 {
				t.Errorf("%s: sent as it came, cost %.1f, raw %.1f", row.Key(), row.Cost, row.RawCost)
			}
		case "churn":
			if row.Request >= 2 && row.Cost <= row.RawCost {
				t.Errorf("%s: missing the cache costs %.1f, the raw request %.1f", row.Key(), row.Cost, row.RawCost)
			}
		}
		if want := rule.write * float64(row.SentTokens); row.Request == 0 && math.Abs(row.Cost-want) > 1e-9 {
			t.Errorf("%s: a run's first request costs %.1f, want every token at the write price, %.1f", row.Key(), row.Cost, want)
		}
		if row.Request > 0 && row.RawCost >= rule.write*float64(row.RawTokens) {
			t.Errorf("%s: raw cost %.1f, no cheaper than uncached %d tokens", row.Key(), row.RawCost, row.RawTokens)
		}
	}
	s := Summarize(Settings{Budgets: []int{100000}, Conditions: []string{"truncation", "churn"}}, rows)
	for _, c := range s.Cells {
		switch {
		case c.Condition == "truncation" && math.Abs(c.CostRatio-1) > 1e-9:
			t.Errorf("%s truncation: cost ratio %.4f, want 1", c.Format, c.CostRatio)
		case c.Condition == "churn" && c.CostRatio <= 1:
			t.Errorf("%s churn: cost ratio %.4f, want over 1", c.Format, c.CostRatio)
		}
	}
}

// TestCostRatioResumed: a cell whose rows do not all say what they cost
// (a run resumed over rows an older swc wrote, without cost fields) has no
// cost ratio: one over the newer rows alone would stand for the whole run
// while it covers its later requests only.
func TestCostRatioResumed(t *testing.T) {
	row := func(i int, cost, raw float64) Row {
		return Row{Trajectory: "t", Format: "openai", Condition: "swc", Budget: 1000, Request: i, RawTokens: 100, SentTokens: 80, Cost: cost, RawCost: raw}
	}
	s := Settings{Budgets: []int{1000}, Conditions: []string{"swc"}}
	for _, tc := range []struct {
		name string
		rows []Row
		want float64
	}{
		{"every row", []Row{row(0, 80, 100), row(1, 30, 60)}, 110.0 / 160},
		{"resumed over older rows", []Row{row(0, 0, 0), row(1, 30, 60)}, 0},
		{"no row says", []Row{row(0, 0, 0), row(1, 0, 0)}, 0},
		{"a refusal says nothing", []Row{row(0, 80, 100), {Trajectory: "t", Format: "openai", Condition: "swc", Budget: 1000, Request: 1, RawTokens: 100, Refused: "no"}}, 0.8},
	} {
		if got := Summarize(s, tc.rows).Cells[0].CostRatio; math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: cost ratio %.4f, want %.4f", tc.name, got, tc.want)
		}
	}
}
