package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/swcmem/swc/bench"
)

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(io.Writer, *bench.Summary) error
		s    *bench.Summary
	}{
		{"summary.csv.golden", CSV, testSummary()},
		{"report.md.golden", Markdown, testSummary()},
		{"minimal.csv.golden", CSV, minimalSummary()},
		{"minimal.md.golden", Markdown, minimalSummary()},
		// swc-temporal question-aware, verdicts from one conversation.
		{"aware.md.golden", Markdown, oneConversation(awareSummary())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name, rendered(t, tc.fn, tc.s))
		})
	}
}

func TestCSVRows(t *testing.T) {
	s := testSummary()
	lines := strings.Split(strings.TrimSpace(string(rendered(t, CSV, s))), "\n")
	// 3 conditions × 6 category keys × 3 metrics, plus the header.
	if got, want := len(lines), 1+3*6*3; got != want {
		t.Fatalf("got %d lines, want %d", got, want)
	}
	if want := "swc-temporal,1,judge,0.4700,0.4200,0.5200,30"; lines[1] != want {
		t.Errorf("first row %q, want %q", lines[1], want)
	}
}

var resourceRef = regexp.MustCompile(`https?://[^"'\s)]*`)

func TestHTML(t *testing.T) {
	s := testSummary()
	a := rendered(t, HTML, s)
	for range 3 {
		if b := rendered(t, HTML, testSummary()); !bytes.Equal(a, b) {
			t.Fatal("two renders of the same summary differ")
		}
	}
	page := string(a)
	if n := strings.Count(page, "<svg"); n != 5 {
		t.Errorf("%d <svg elements, want 5 (categories, paired, conversations, tiers, tokens)", n)
	}
	for _, ref := range resourceRef.FindAllString(page, -1) {
		if ref != "http://www.w3.org/2000/svg" {
			t.Errorf("external reference %q", ref)
		}
	}
	for _, bad := range []string{"<script", "<?xml", "<link", "<img", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, want := range []string{"<title>SWC benchmark report</title>", "swc-temporal − swc-full", "0.470 [0.420, 0.520]", "20.46", `font-family="Arial,Helvetica,sans-serif"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	checkWellFormed(t, page)
	checkCharts(t, page)
	if len(a) > 400_000 {
		t.Errorf("page is %d bytes", len(a))
	}
}

// checkWellFormed parses the page as XML: every element it writes is
// closed, and the doctype is the only non-XML part.
func checkWellFormed(t *testing.T, page string) {
	t.Helper()
	page = strings.TrimPrefix(page, "<!DOCTYPE html>\n")
	page = strings.Replace(page, `<meta charset="utf-8">`, `<meta charset="utf-8"/>`, 1)
	page = strings.Replace(page, `initial-scale=1">`, `initial-scale=1"/>`, 1)
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("page is not well-formed: %v", err)
		}
	}
}

func TestHTMLEscapes(t *testing.T) {
	s := minimalSummary()
	s.Settings.Data = `<script>alert("x")</script>`
	bad := `a<b>&"c"`
	s.Order = []string{bad}
	s.Conditions = map[string]*bench.ConditionSummary{bad: s.Conditions["truncation"]}
	s.PerConversation["conv-26"] = map[string]*bench.ConvSummary{bad: s.PerConversation["conv-26"]["truncation"]}
	page := string(rendered(t, HTML, s))
	if strings.Contains(page, "<script>") || strings.Contains(page, "a<b>") {
		t.Error("unescaped text in page")
	}
	checkWellFormed(t, page)
	md := string(rendered(t, Markdown, s))
	if strings.Contains(strings.ReplaceAll(md, `\<`, ""), "<") {
		t.Error("unescaped HTML in Markdown")
	}
}

func TestMinimal(t *testing.T) {
	nilCondition := minimalSummary()
	nilCondition.Order = append(nilCondition.Order, "sliding")
	nilCondition.Conditions["sliding"] = nil
	for _, s := range []*bench.Summary{minimalSummary(), {}, nilCondition} {
		for name, fn := range map[string]func(io.Writer, *bench.Summary) error{"csv": CSV, "md": Markdown, "html": HTML} {
			out := rendered(t, fn, s)
			if len(out) == 0 {
				t.Errorf("%s: empty output", name)
			}
		}
	}
	page := string(rendered(t, HTML, minimalSummary()))
	// No tiers without an SWC condition: three charts.
	if n := strings.Count(page, "<svg"); n != 3 {
		t.Errorf("%d <svg elements, want 3", n)
	}
	checkWellFormed(t, page)
}

func TestWriteAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	s := testSummary()
	if err := WriteAll(dir, s); err != nil {
		t.Fatal(err)
	}
	for name, fn := range map[string]func(io.Writer, *bench.Summary) error{CSVFile: CSV, MarkdownFile: Markdown, HTMLFile: HTML} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, rendered(t, fn, s)) {
			t.Errorf("%s differs from its renderer's output", name)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("%d files in dir, want 3 (temporary files left?)", len(entries))
	}
}

// checkCharts: every chart has a title and both axis labels in words (no
// metric identifiers), and a condition has the same colour in every chart.
func checkCharts(t *testing.T, page string) {
	t.Helper()
	for _, svg := range strings.Split(page, "<svg")[1:] {
		svg = svg[:strings.Index(svg, "</svg>")]
		id := regexp.MustCompile(`id="(chart-[^"]+)"`).FindStringSubmatch(svg)
		if id == nil {
			t.Errorf("chart without id: %.80s", svg)
			continue
		}
		for _, class := range []string{"chart-title", "x-label", "y-label"} {
			m := regexp.MustCompile(`class="[^"]*` + class + `[^"]*"[^>]*>([^<]+)<`).FindStringSubmatch(svg)
			if m == nil || strings.TrimSpace(m[1]) == "" {
				t.Errorf("%s: no %s", id[1], class)
				continue
			}
			if strings.Contains(m[1], "_") {
				t.Errorf("%s: %s %q is an identifier, not words", id[1], class, m[1])
			}
		}
		if !strings.Contains(svg, "<title") {
			t.Errorf("%s: no <title>", id[1])
		}
	}
	// swc-temporal's legend swatch has one colour throughout.
	colors := map[string]bool{}
	for _, m := range regexp.MustCompile(`fill="(#[0-9A-F]{6})"/><text class="legend"[^>]*>swc-temporal<`).FindAllStringSubmatch(page, -1) {
		colors[m[1]] = true
	}
	if len(colors) != 1 || !colors[colorOf("swc-temporal")] {
		t.Errorf("swc-temporal legend colours %v, want only %s", colors, colorOf("swc-temporal"))
	}
}
