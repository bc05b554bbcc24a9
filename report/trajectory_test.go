package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/swcmem/swc/trajectory"
)

func TestTrajectoryReport(t *testing.T) {
	s := &trajectory.Summary{
		Settings: trajectory.Settings{Data: "dev", Budgets: []int{8000, 16000}, Conditions: []string{"truncation", "swc"}, Tokenizer: "cl100k_base", Version: "test"},
		Formats:  []string{"openai"},
		Cells: []trajectory.Cell{
			{Format: "openai", Budget: 8000, Condition: "truncation", Requests: 10, FRR: 0.8, FRRN: 5, RecFRR: 0.8, Misses: map[string]int{trajectory.MissNoHandleLine: 2}, RawTokens: 100, SentTokens: 40, Ratio: 0.4, Stable: 3, Pairs: 9, StableShare: 1.0 / 3},
			{Format: "openai", Budget: 8000, Condition: "swc", Requests: 10, Refusals: 10},
			{Format: "openai", Budget: 8000, Condition: "swc-2", Requests: 10, FRR: 0.7, FRRN: 5, FRROver: 0.6, FRROverN: 4, RecFRR: 0.95, RecFRROver: 0.9375,
				Misses: map[string]int{trajectory.MissCountLine: 2, trajectory.MissNotObservation: 1}, RawTokens: 100, SentTokens: 40, Ratio: 0.4},
			{Format: "openai", Budget: 16000, Condition: "truncation", Requests: 10, FRR: 0.9, FRRN: 5, RawTokens: 100, SentTokens: 70, Ratio: 0.7},
		},
	}
	var md, html bytes.Buffer
	if err := TrajectoryMarkdown(&md, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"openai, budget 8000 tokens.", "| truncation | 0.800 (5) | — | 0.800 | — | dropped without handle 2 | — | 0.400 | 0/10 | 0 | 0 | 33.33% |", "| swc | — | — | — | — | — | — | — | 10/10 |",
		"| swc-2 | 0.700 (5) | 0.600 (4) | 0.950 | 0.938 | count line 2, no handle 1 | — | 0.400 |", "| truncation | 0.900 (5) | — | 0.000 | — | 0 | — | 0.700 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md.String())
		}
	}
	if err := TrajectoryHTML(&html, s); err != nil {
		t.Fatal(err)
	}
	svg := TrajectoryChart(s, "openai")
	if strings.Count(svg, "<circle") != 3 || !strings.Contains(html.String(), `id="chart-frr-openai"`) || strings.Contains(svg, ">swc at") {
		t.Errorf("chart: want truncation's two points, swc-2's one and no swc (no FRR):\n%s", svg)
	}
	if TrajectoryChart(s, "anthropic") != "" {
		t.Error("a chart for a format without cells")
	}
}
