package report

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/swcmem/swc/bench"
)

// HTML writes s as report.html: one self-contained page (inline CSS, no
// scripts, no external resources) with the tables of Markdown and inline
// SVG charts (see charts), each left out when it has no data. It returns
// an error when a chart cannot be drawn or writing fails.
func HTML(w io.Writer, s *bench.Summary) error {
	svgs, err := charts(s)
	if err != nil {
		return err
	}
	return writePage(w, Title, sections(s), svgs)
}

// writePage writes one self-contained page (page.templ): title,
// navigation, and each section with its paragraphs, items, tables and the
// chart svgs names, written through templ's buffer. It returns the write
// error.
func writePage(w io.Writer, title string, secs []section, svgs map[string]string) error {
	if err := page(title, secs, svgs).Render(context.Background(), w); err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	return nil
}

// maxHTMLColumns is how many value columns a table shows side by side; a
// wider one is split so that it fits a 1400 px window.
const maxHTMLColumns = 5

// splitWide splits t into tables of at most max value columns each, every
// part repeating the label columns, so that no table needs horizontal
// scrolling. Parts after the first say "(continued)".
func splitWide(t table, max int) []table {
	labels := t.labels()
	values := len(t.Header) - labels
	if values <= max {
		return []table{t}
	}
	var out []table
	for start := labels; start < len(t.Header); start += max {
		end := min(start+max, len(t.Header))
		part := table{Labels: t.Labels, Caption: t.Caption}
		if start > labels {
			part.Caption = strings.TrimSuffix(t.Caption, ".") + " (continued)."
			if t.Caption == "" {
				part.Caption = "(continued)"
			}
		}
		part.Header = append(append([]string(nil), t.Header[:labels]...), t.Header[start:end]...)
		for _, row := range t.Rows {
			r := append([]string(nil), row[:min(labels, len(row))]...)
			if start < len(row) {
				r = append(r, row[start:min(end, len(row))]...)
			}
			part.Rows = append(part.Rows, r)
		}
		out = append(out, part)
	}
	return out
}
