package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/swcmem/swc/bench"
)

// Title is the heading of the Markdown and HTML reports.
const Title = "SWC benchmark report"

// Markdown writes s as report.md: a title, the settings and the
// paper-style tables (aggregate, by category, category 5, matched set,
// paired differences, category 2 by conversation, tiers, context tokens,
// and usage, preservation and judge audit when present). Numbers have 3
// decimals. It returns the first write error.
func Markdown(w io.Writer, s *bench.Summary) error {
	if err := writeMarkdown(w, Title, sections(s)); err != nil {
		return fmt.Errorf("report: markdown: %w", err)
	}
	return nil
}

// writeMarkdown writes a document of title and secs: each section's
// heading, paragraphs, list items and tables. It returns the write error.
func writeMarkdown(w io.Writer, title string, secs []section) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n", mdText(title))
	for _, sec := range secs {
		fmt.Fprintf(bw, "\n## %s\n", mdText(sec.Title))
		for _, p := range sec.Caveats {
			fmt.Fprintf(bw, "\n> %s\n", mdText(p))
		}
		for _, p := range sec.Text {
			fmt.Fprintf(bw, "\n%s\n", mdText(p))
		}
		if len(sec.Items) > 0 {
			bw.WriteString("\n")
			for _, it := range sec.Items {
				fmt.Fprintf(bw, "- %s\n", mdText(it))
			}
		}
		for _, t := range sec.Tables {
			writeMarkdownTable(bw, t)
		}
	}
	return bw.Flush()
}

func writeMarkdownTable(w *bufio.Writer, t table) {
	if t.Caption != "" {
		fmt.Fprintf(w, "\n%s\n", mdText(t.Caption))
	}
	w.WriteString("\n")
	writeMarkdownRow(w, t.Header)
	sep := make([]string, len(t.Header))
	for i := range sep {
		sep[i] = "---:"
		if i < t.labels() {
			sep[i] = "---"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(sep, "|"))
	for _, r := range t.Rows {
		writeMarkdownRow(w, r)
	}
}

func writeMarkdownRow(w *bufio.Writer, cells []string) {
	w.WriteString("|")
	for _, c := range cells {
		w.WriteString(" ")
		w.WriteString(mdCell(c))
		w.WriteString(" |")
	}
	w.WriteString("\n")
}

// mdReplacer escapes the characters Markdown would interpret in text.
// "<" is escaped so no HTML gets through. Underscores, brackets, ">"
// and "#" are left alone: intraword underscores
// and brackets not followed by a link target render literally.
var mdReplacer = strings.NewReplacer(`\`, `\\`, "*", `\*`, "`", "\\`", "<", `\<`)

// mdText escapes s for a Markdown paragraph or heading, on one line.
func mdText(s string) string {
	return mdReplacer.Replace(strings.Join(strings.Fields(s), " "))
}

// mdCell escapes s for a table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(mdText(s), "|", `\|`)
}
