package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/internal/chromiumtest"
)

// wideSummary is testSummary grown to LoCoMo's shape: eleven conditions,
// three of them question-aware, ten conversations and a paired difference
// per pair, so that every table and chart is as wide as a real run's.
func wideSummary() *bench.Summary {
	s := testSummary()
	base := s.Order
	for i, c := range []string{"full", "sliding", "sliding-temporal", "swc-anchored", "swc-select", "swc-recall", "rag-bm25", "rag-bm25-anchored"} {
		src := s.Conditions[base[i%len(base)]]
		cp := *src
		cp.QueryAware = c == "swc-recall" || strings.HasPrefix(c, "rag-")
		s.Conditions[c] = &cp
		s.Order = append(s.Order, c)
		for _, conv := range s.Settings.Conversations {
			if cs := s.PerConversation[conv][base[i%len(base)]]; cs != nil {
				cc := *cs
				s.PerConversation[conv][c] = &cc
			}
		}
	}
	s.Settings.Conditions = s.Order
	first := s.Settings.Conversations[0]
	for _, conv := range []string{"conv-42", "conv-43", "conv-44", "conv-47", "conv-48", "conv-49", "conv-50"} {
		s.PerConversation[conv] = s.PerConversation[first]
		s.Settings.Conversations = append(s.Settings.Conversations, conv)
	}
	for _, a := range []string{"swc-anchored", "swc-full", "sliding", "sliding-temporal", "swc-recall", "rag-bm25-anchored"} {
		for _, cat := range []string{"1-4", "2"} {
			p := s.Paired[0]
			p.A, p.B, p.Category = a, "truncation", cat
			s.Paired = append(s.Paired, p)
		}
	}
	return s
}

// TestReportInChromium renders report.html for a LoCoMo-sized run in a
// real headless Chromium at 1400×900 and checks what a reader sees: no
// table wider than the window, no horizontal scrolling, every chart with a
// title and both axes labelled, and in no chart a label that overlaps
// another or a reference line (the budget, the zero of the forest plot). It saves a full-page screenshot in the
// test's temporary directory (or $SWC_TEST_ARTIFACTS). SWC_TEST_REPORT=FILE
// checks a real run's report.html instead of the generated one.
func TestReportInChromium(t *testing.T) {
	ctx := chromiumtest.New(t, 1400, 900)
	dir := t.TempDir()
	var page bytes.Buffer
	if err := HTML(&page, wideSummary()); err != nil {
		t.Fatal(err)
	}
	if p := os.Getenv("SWC_TEST_REPORT"); p != "" { // check a real run's report.html instead
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		page.Reset()
		page.Write(b)
	}
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1400, 900),
		chromedp.Navigate("file://"+path),
		chromedp.WaitVisible("#key"),
	); err != nil {
		t.Fatal(err)
	}
	type layout struct {
		Width      float64  `json:"width"`
		Scroll     float64  `json:"scroll"`
		Overflow   []string `json:"overflow"`
		Tables     int      `json:"tables"`
		Charts     []chart  `json:"charts"`
		FirstTitle string   `json:"first"`
		Overlaps   []string `json:"overlaps"`
		Texts      int      `json:"texts"`
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[layout](`(() => {
		const w = window.innerWidth;
		const tables = Array.from(document.querySelectorAll('table'));
		return {
			width: w,
			scroll: document.documentElement.scrollWidth,
			tables: tables.length,
			overflow: tables.filter(t => t.getBoundingClientRect().right > w + 0.5)
				.map(t => (t.querySelector('caption') || t.querySelector('th')).textContent),
			charts: Array.from(document.querySelectorAll('svg.chart')).map(s => ({
				id: s.id,
				title: (s.querySelector('.chart-title') || {}).textContent || '',
				x: (s.querySelector('.x-label') || {}).textContent || '',
				y: (s.querySelector('.y-label') || {}).textContent || '',
				right: s.getBoundingClientRect().right,
			})),
			first: document.querySelector('section h2').textContent,
			...overlaps(),
		};
		function overlaps() {
			// Boxes of the rendered text of every chart, against each other and
			// against the reference lines (widened by their stroke).
			const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
			const out = [];
			let n = 0;
			for (const svg of document.querySelectorAll('svg.chart')) {
				const texts = Array.from(svg.querySelectorAll('text'))
					.map(t => ({s: t.textContent, r: t.getBoundingClientRect()}))
					.filter(t => t.r.width > 0);
				n += texts.length;
				const lines = Array.from(svg.querySelectorAll('line.reference')).map(l => {
					const r = l.getBoundingClientRect();
					return {left: r.left - 1, right: r.right + 1, top: r.top - 1, bottom: r.bottom + 1};
				});
				texts.forEach((a, i) => {
					texts.slice(i + 1).forEach(b => { if (hit(a.r, b.r)) out.push(svg.id + ': "' + a.s + '" overlaps "' + b.s + '"'); });
					lines.forEach(l => { if (hit(a.r, l)) out.push(svg.id + ': "' + a.s + '" crosses a reference line'); });
				});
			}
			return {overlaps: out, texts: n};
		}
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if got.Width != 1400 {
		t.Errorf("window is %v px wide, want 1400", got.Width)
	}
	if got.Tables < 10 {
		t.Errorf("only %d tables rendered", got.Tables)
	}
	if len(got.Overflow) > 0 || got.Scroll > got.Width {
		t.Errorf("page scrolls sideways (%v px of %v); tables past the window: %q", got.Scroll, got.Width, got.Overflow)
	}
	if got.Texts < 100 {
		t.Errorf("only %d chart texts measured", got.Texts)
	}
	for _, o := range got.Overlaps {
		t.Errorf("chart text overlaps: %s", o)
	}
	if got.FirstTitle != "Key results" {
		t.Errorf("first section %q, want Key results", got.FirstTitle)
	}
	if len(got.Charts) != 5 {
		t.Errorf("%d charts, want 5", len(got.Charts))
	}
	for _, c := range got.Charts {
		if strings.TrimSpace(c.Title) == "" || strings.TrimSpace(c.X) == "" || strings.TrimSpace(c.Y) == "" {
			t.Errorf("chart %s: title %q, x axis %q, y axis %q; want all three", c.ID, c.Title, c.X, c.Y)
		}
		if c.Right > got.Width {
			t.Errorf("chart %s ends at %v px, past the window", c.ID, c.Right)
		}
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("SWC_TEST_ARTIFACTS")
	if out == "" {
		out = dir
	}
	if out != dir {
		if err := os.WriteFile(filepath.Join(out, "report.html"), page.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	png := filepath.Join(out, "report.png")
	if err := os.WriteFile(png, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", png, len(shot))
}

type chart struct {
	ID    string  `json:"id"`
	Title string  `json:"title"`
	X     string  `json:"x"`
	Y     string  `json:"y"`
	Right float64 `json:"right"`
}
