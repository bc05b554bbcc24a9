package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/trajectory"
)

// TrajectoryTitle is the heading of the trajectory bench's reports.
const TrajectoryTitle = "SWC trajectory benchmark: forward-reference retention in coding-agent tool loops"

// trajectorySections builds the report: the settings, what the metrics
// mean, a table per format and budget, and per format the chart of FRR
// against the tokens sent.
func trajectorySections(s *trajectory.Summary) []section {
	st := s.Settings
	out := []section{{ID: "settings", Title: "Settings", Items: []string{
		"Data: " + st.Data + " (" + strconv.Itoa(len(st.Trajectories)) + " trajectories; sha256 " + short(st.DataSHA256) + ")",
		"Budgets: " + joinInts(st.Budgets) + " tokens (" + st.Tokenizer + ")",
		"Conditions: " + strings.Join(st.Conditions, ", "),
		"Version: " + st.Version,
	}}, {ID: "metrics", Title: "Metrics", Items: []string{
		"FRR (forward-reference retention): of the identifiers the next assistant turn uses (text and tool-call arguments: paths, dotted, snake_case and camelCase names, numbers of 3+ digits) that the request held only in tool outputs or observations, the share present in the sent request's text; mean over the requests with at least one (their number in brackets); refusals left out. FRR over: the same over the requests whose uncompressed messages exceed the budget, the ones a compressor had to change.",
		"Recoverable FRR: the same share counting also the identifiers the sent request lacks but one swc_recall call on a handle it shows returns: the observation that held them was stubbed or dropped and its handle ([swc:h…], the proxy's) is in a stub or in the memory's list of earlier calls. A placeholder with no handle (masking, trimming, truncation) recovers nothing: for those conditions it is their FRR. Misses: the identifiers neither in the request nor behind a shown handle, by why — count line (dropped into the memory's \"[… N earlier calls left out]\" line, which names no handle), dropped without handle (no handle shown and no count line), no handle (held only in messages the proxy does not take for observations).",
		"Own-reference retention: of the identifiers the next assistant turn uses that the request held in earlier assistant turns (their text or their calls' arguments) and not in the instructions or the task, the share present in the sent request's text; mean over the requests with at least one. FRR leaves these out; this measures what a condition that shortens the agent's own turns loses of them.",
		"Sent/raw: tokens of the sent messages over the uncompressed ones, summed over the requests not refused (cl100k_base, 4 a message).",
		"Refused: the compressor returned an error. Breaches: sent bodies breaking a provider rule (a tool call not answered by exactly one result right after it; Anthropic: first message a user's, roles alternating). Over: sent requests still over the budget.",
		"Stable prefix: of consecutive requests of one run (both compressed), the share whose sent message list starts with the previous request's, byte for byte, every other field unchanged (a prompt cache hit on the whole previous request). Cached: of those later requests' message-list bytes (Anthropic form: system and message bytes, content block by content block, as its cache reads them), the share in leading items (blocks) the earlier request sent byte for byte (what a provider's prompt cache serves). Cached (marks), Anthropic form: the same share under Anthropic's rules, where a prefix is served only up to a content block carrying a cache_control mark in an earlier request of the run, looked for from this request's marks at most 20 content blocks back; the client marks its last message (as Claude Code does), the condition adds its own.",
		"Cost with caching: what the sent requests cost with the provider's prompt cache over what the requests as the agent sent them (uncompressed, each a cache hit on the one before) would have, summed over a run's requests not refused. A request's cached part is its Cached share (Anthropic form: Cached (marks)) of its tokens, billed at 0.1 of the input price; the rest at 1.25 in Anthropic form (written to the cache: the client marks its last message) and at 1 in the others (OpenAI's rule for its current models). Below 1, the condition costs less than sending the whole history; above 1, its rewrites cost more in cache misses than its tokens save.",
		"Times: compression of one request, wall clock and process CPU, median and 99th percentile.",
	}}}
	if len(st.Skipped) > 0 {
		files := strconv.Itoa(len(st.Skipped)) + " files"
		if len(st.Skipped) == 1 {
			files = "1 file"
		}
		out[0].Items = append(out[0].Items, "Skipped, unreadable ("+files+"): "+strings.Join(st.Skipped, "; "))
	}
	for _, f := range s.Formats {
		sec := section{ID: "format-" + f, Title: "Format " + f, Chart: "frr-" + f,
			Text: []string{"One table per budget. The chart after the tables plots each condition's mean FRR against its sent/raw token ratio, one point per budget."}}
		for _, b := range st.Budgets {
			t := table{Caption: fmt.Sprintf("%s, budget %d tokens.", f, b),
				Header: []string{"Condition", "FRR (n)", "FRR over (n)", "Recoverable FRR", "Recoverable FRR over", "Misses", "Own-reference retention (n)", "Sent/raw", "Refused", "Breaches", "Over", "Stable prefix", "Cached", "Cached (marks)", "Cost with caching", "Wall p50/p99 ms", "CPU p50/p99 ms"}}
			for _, c := range s.Cells {
				if c.Format != f || c.Budget != b {
					continue
				}
				t.Rows = append(t.Rows, []string{c.Condition, frrCell(c.FRR, c.FRRN), frrCell(c.FRROver, c.FRROverN),
					ratioCell(c.RecFRR, c.FRRN > 0), ratioCell(c.RecFRROver, c.FRROverN > 0), missesCell(c), frrCell(c.ORR, c.ORRN), ratioCell(c.Ratio, c.RawTokens > 0),
					fmt.Sprintf("%d/%d", c.Refusals, c.Requests), strconv.Itoa(c.Breaches), strconv.Itoa(c.OverBudget),
					stableCell(c), cachedCell(c), markedCell(c), ratioCell(c.CostRatio, c.CostRatio > 0), num(c.WallP50, 1) + " / " + num(c.WallP99, 1), num(c.CPUP50, 1) + " / " + num(c.CPUP99, 1)})
			}
			if len(t.Rows) > 0 {
				sec.Tables = append(sec.Tables, t)
			}
		}
		out = append(out, sec)
	}
	return out
}

// frrCell is a mean FRR and its number of requests.
func frrCell(frr float64, n int) string {
	if n == 0 {
		return none
	}
	return num(frr, 3) + " (" + strconv.Itoa(n) + ")"
}

// missesCell is a cell's unrecoverable targets by why ("0" for none).
func missesCell(c trajectory.Cell) string {
	if c.FRRN == 0 {
		return none
	}
	var parts []string
	for _, why := range []string{trajectory.MissCountLine, trajectory.MissNoHandleLine, trajectory.MissNotObservation} {
		if n := c.Misses[why]; n > 0 {
			parts = append(parts, why+" "+strconv.Itoa(n))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, ", ")
}

func ratioCell(x float64, ok bool) string {
	if !ok {
		return none
	}
	return num(x, 3)
}

func cachedCell(c trajectory.Cell) string {
	if c.Pairs == 0 {
		return "—"
	}
	return pct(c.CachedShare)
}

func markedCell(c trajectory.Cell) string {
	if c.Pairs == 0 || c.Format != string(chat.Anthropic) {
		return "—"
	}
	return pct(c.MarkCachedShare)
}

func stableCell(c trajectory.Cell) string {
	if c.Pairs == 0 {
		return none
	}
	return pct(c.StableShare)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// TrajectoryChart draws format's mean FRR (y) against the sent/raw token
// ratio (x), one line per condition through its budgets (colours fixed per
// condition name), as an SVG element; "" when no cell of format has an
// FRR.
func TrajectoryChart(s *trajectory.Summary, format string) string {
	var conds []string
	points := map[string][]trajectory.Cell{}
	for _, c := range s.Cells {
		if c.Format != format || c.FRRN == 0 || c.RawTokens == 0 {
			continue
		}
		if points[c.Condition] == nil {
			conds = append(conds, c.Condition)
		}
		points[c.Condition] = append(points[c.Condition], c)
	}
	if len(conds) == 0 {
		return ""
	}
	// the y axis from a tenth below the lowest mean, so that differences
	// near 1 show
	lo := 1.0
	for _, cs := range points {
		for _, c := range cs {
			lo = min(lo, c.FRR)
		}
	}
	ymin := max(0, math.Floor(lo*10-0.5)/10)
	step := 0.1
	if 1-ymin <= 0.3 {
		step = 0.05
	}
	var ticks []float64
	for v := ymin; v <= 1+1e-9; v += step {
		ticks = append(ticks, v)
	}
	f := newFrame("frr-"+format, fmt.Sprintf("FRR against tokens sent, %s (one point per budget)", format),
		"tokens sent / raw tokens", "mean FRR", ymin, 1)
	f.yAxis(ticks, func(v float64) string { return num(v, 2) })
	x := func(r float64) float64 { return marginLeft + f.plotW()*(0.02+0.96*min(max(r, 0), 1)) }
	var xs []float64
	var labels []string
	for _, t := range []float64{0, 0.2, 0.4, 0.6, 0.8, 1} {
		xs = append(xs, x(t))
		labels = append(labels, num(t, 1))
	}
	f.xLabels(xs, labels)
	for _, name := range conds {
		col := colorOf(name)
		var d strings.Builder
		for i, c := range points[name] {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f", cmd, x(c.Ratio), f.y(c.FRR))
		}
		fmt.Fprintf(&f.b, `<path class="series" d="%s" stroke="%s" stroke-width="2" fill="none"/>`+"\n", d.String(), col)
		for _, c := range points[name] {
			fmt.Fprintf(&f.b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s at %d tokens: FRR %s (n %d), sent/raw %s</title></circle>`+"\n",
				x(c.Ratio), f.y(c.FRR), col, svgText(name), c.Budget, num(c.FRR, 3), c.FRRN, num(c.Ratio, 3))
		}
		f.legend = append(f.legend, legendItem{name: name, color: col})
	}
	return f.end()
}

// TrajectoryMarkdown writes the trajectory bench's report.md. It returns
// the first write error.
func TrajectoryMarkdown(w io.Writer, s *trajectory.Summary) error {
	if err := writeMarkdown(w, TrajectoryTitle, trajectorySections(s)); err != nil {
		return fmt.Errorf("report: markdown: %w", err)
	}
	return nil
}

// TrajectoryHTML writes the trajectory bench's report.html: the tables of
// TrajectoryMarkdown and a chart per format. It returns the write error.
func TrajectoryHTML(w io.Writer, s *trajectory.Summary) error {
	svgs := map[string]string{}
	for _, f := range s.Formats {
		svgs["frr-"+f] = TrajectoryChart(s, f)
	}
	return writePage(w, TrajectoryTitle, trajectorySections(s), svgs)
}

// TrajectoryCSV writes summary.csv: one row per cell, with columns
// format,budget,condition,requests,refusals,breaches,over_budget,frr,frr_n,
// no_targets,frr_pooled,frr_over,frr_over_n,recoverable_frr,
// recoverable_frr_pooled,recoverable_frr_over,miss_count_line,
// miss_dropped_without_handle,miss_no_handle,orr,orr_n,raw_tokens,sent_tokens,tokens_ratio,stable,pairs,
// stable_share,cached_share,mark_cached_share,cost_ratio,wall_p50_ms,wall_p99_ms,cpu_p50_ms,cpu_p99_ms,
// input_breaches. It returns
// the first write error.
func TrajectoryCSV(w io.Writer, s *trajectory.Summary) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"format", "budget", "condition", "requests", "refusals", "breaches", "over_budget", "frr", "frr_n", "no_targets", "frr_pooled", "frr_over", "frr_over_n",
		"recoverable_frr", "recoverable_frr_pooled", "recoverable_frr_over", "miss_count_line", "miss_dropped_without_handle", "miss_no_handle", "orr", "orr_n",
		"raw_tokens", "sent_tokens", "tokens_ratio", "stable", "pairs", "stable_share", "cached_share", "mark_cached_share", "cost_ratio", "wall_p50_ms", "wall_p99_ms", "cpu_p50_ms", "cpu_p99_ms", "input_breaches"})
	i, f4 := strconv.Itoa, func(x float64) string { return num(x, 4) }
	for _, c := range s.Cells {
		cw.Write([]string{c.Format, i(c.Budget), c.Condition, i(c.Requests), i(c.Refusals), i(c.Breaches), i(c.OverBudget), f4(c.FRR), i(c.FRRN), i(c.NoTargets), f4(c.Pooled), f4(c.FRROver), i(c.FRROverN),
			f4(c.RecFRR), f4(c.RecPooled), f4(c.RecFRROver), i(c.Misses[trajectory.MissCountLine]), i(c.Misses[trajectory.MissNoHandleLine]), i(c.Misses[trajectory.MissNotObservation]), f4(c.ORR), i(c.ORRN),
			strconv.FormatInt(c.RawTokens, 10), strconv.FormatInt(c.SentTokens, 10), f4(c.Ratio), i(c.Stable), i(c.Pairs), f4(c.StableShare), f4(c.CachedShare), f4(c.MarkCachedShare), f4(c.CostRatio),
			f4(c.WallP50), f4(c.WallP99), f4(c.CPUP50), f4(c.CPUP99), i(c.InputBreaches)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: csv: %w", err)
	}
	return nil
}

// WriteTrajectories renders s and writes summary.json, summary.csv,
// report.md and report.html into dir, each atomically, after rendering
// all four. It returns the first rendering or file-system error.
func WriteTrajectories(dir string, s *trajectory.Summary) error {
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encode summary: %w", err)
	}
	var csvb, md, html bytes.Buffer
	if err := TrajectoryCSV(&csvb, s); err != nil {
		return err
	}
	if err := TrajectoryMarkdown(&md, s); err != nil {
		return err
	}
	if err := TrajectoryHTML(&html, s); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for name, data := range map[string][]byte{"summary.json": append(js, '\n'), CSVFile: csvb.Bytes(), MarkdownFile: md.Bytes(), HTMLFile: html.Bytes()} {
		if err := bench.WriteFileAtomic(filepath.Join(dir, name), data); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}
