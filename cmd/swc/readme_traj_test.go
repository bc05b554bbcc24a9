package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/swcmem/swc/internal/skipnote"
	"github.com/swcmem/swc/trajectory"
)

// trajectoryDir holds the shared coding-agent trajectories.
const trajectoryDir = "../../../shared/data/trajectories"

// TestREADMETrajectories pins the README's table of tool loops to a run
// of the command it names (`swc bench --trajectories DIR --windows 0/3`):
// every cell's FRR and sent/raw within ±0.002, its stable prefix to the
// percent.
func TestREADMETrajectories(t *testing.T) {
	if _, err := os.Stat(trajectoryDir); err != nil {
		abs, _ := filepath.Abs(trajectoryDir)
		skipnote.Skip(t, "trajectories", "the developer set is not at "+abs+", so the README's tool-loop table is not checked")
	}
	if testing.Short() {
		t.Skip("the whole trajectory bench")
	}
	dir := t.TempDir()
	if _, _, err := run(t, nil, "bench", "--trajectories", trajectoryDir, "--windows", "0/3", "--out", dir); err != nil {
		t.Fatal(err)
	}
	sum := readTrajectorySummary(t, dir)
	cells := map[string]trajectory.Cell{}
	for _, c := range sum.Cells {
		cells[fmt.Sprintf("%s %d %s", c.Format, c.Budget, c.Condition)] = c
	}
	raw, _ := readmeText(t)
	at := strings.Index(raw, "| format, budget | truncation | mask-5 | mask-10 | trim-half | swc | swc, no window |")
	if at < 0 {
		t.Fatal("the README's tool-loop table is gone: keep this test in step with it")
	}
	row := regexp.MustCompile(`(?m)^\| (OpenAI|Anthropic), ([\d,]+) \|(.*)\|$`)
	cell := regexp.MustCompile(`^ *` + numRE + ` / ` + numRE + ` / (\d+)% *$`)
	conds := []string{"truncation", "mask-5", "mask-10", "trim-half", "swc", "swc-0-3"}
	n := 0
	for _, m := range row.FindAllStringSubmatch(raw[at:], 6) {
		format := strings.ToLower(m[1])
		budget := strings.ReplaceAll(m[2], ",", "")
		parts := strings.Split(m[3], "|")
		if len(parts) != len(conds) {
			t.Fatalf("row %s %s: %d cells, want %d", m[1], m[2], len(parts), len(conds))
		}
		for i, p := range parts {
			c, ok := cells[format+" "+budget+" "+conds[i]]
			v := cell.FindStringSubmatch(p)
			if !ok || v == nil {
				t.Fatalf("row %s %s, %s: cell %q not measured or not FRR / sent / stable%%", m[1], m[2], conds[i], p)
			}
			what := fmt.Sprintf("%s %s %s", format, budget, conds[i])
			readmeNear(t, what+" FRR", v[1], c.FRR)
			readmeNear(t, what+" sent/raw", v[2], c.Ratio)
			if got := fmt.Sprintf("%.0f", 100*c.StableShare); got != v[3] {
				t.Errorf("README %s stable prefix %s%%, measured %s%%", what, v[3], got)
			}
			n++
		}
	}
	if n != 36 {
		t.Errorf("%d cells of the README's tool-loop table checked, want 36", n)
	}
	costRow := regexp.MustCompile(`(?m)^\| (OpenAI|Anthropic), ([\d,]+) \(cost\) \|(.*)\|$`)
	n = 0
	for _, m := range costRow.FindAllStringSubmatch(raw[at:], 6) {
		format, budget := strings.ToLower(m[1]), strings.ReplaceAll(m[2], ",", "")
		parts := strings.Split(m[3], "|")
		if len(parts) != len(conds) {
			t.Fatalf("cost row %s %s: %d cells, want %d", m[1], m[2], len(parts), len(conds))
		}
		for i, p := range parts {
			c, ok := cells[format+" "+budget+" "+conds[i]]
			if !ok || c.CostRatio == 0 {
				t.Fatalf("cost row %s %s, %s: not measured", m[1], m[2], conds[i])
			}
			readmeNear(t, fmt.Sprintf("%s %s %s cost", format, budget, conds[i]), strings.TrimSpace(p), c.CostRatio)
			n++
		}
	}
	if n != 36 {
		t.Errorf("%d cells of the README's cost table checked, want 36", n)
	}
}

// readTrajectorySummary reads the summary.json a trajectory bench wrote
// into dir.
func readTrajectorySummary(t *testing.T, dir string) trajectory.Summary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum trajectory.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}
