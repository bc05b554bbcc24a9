package report

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/swcmem/swc/bench"
)

// The page is written by hand rather than with html/template: text/template
// looks methods up by name at run time, which makes the linker keep every
// exported method of every type in the binary (tens of megabytes with the
// model SDKs). Every piece of text goes through html.EscapeString.

const pageStyle = `body{font-family:Arial,Helvetica,sans-serif;margin:2em auto;max-width:84em;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
nav a{margin-right:1em}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}
caption{text-align:left;font-style:italic;padding:.3em 0}
th,td{padding:.25em .6em;border-bottom:1px solid #e5e5e5;vertical-align:top}
th{background:#f5f5f5;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr:last-child td{border-bottom:none}
.key{background:#f4f8fb;border-left:4px solid #4E79A7;padding:.5em 1em}
.key li{margin:.2em 0}
figure{margin:1em 0}figure svg{max-width:100%;height:auto}
`

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

// writePage writes one self-contained page: title, navigation, and each
// section with its paragraphs, items, tables and the chart svgs names.
func writePage(w io.Writer, title string, secs []section, svgs map[string]string) error {
	bw := bufio.NewWriter(w)
	e := html.EscapeString
	fmt.Fprintf(bw, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>%s</h1>\n<nav>", e(title), pageStyle, e(title))
	for _, sec := range secs {
		fmt.Fprintf(bw, "<a href=\"#%s\">%s</a> ", e(sec.ID), e(sec.Title))
	}
	bw.WriteString("</nav>\n")
	for _, sec := range secs {
		fmt.Fprintf(bw, "<section id=\"%s\">\n<h2>%s</h2>\n", e(sec.ID), e(sec.Title))
		for _, p := range sec.Text {
			fmt.Fprintf(bw, "<p>%s</p>\n", e(p))
		}
		if len(sec.Items) > 0 {
			bw.WriteString("<ul class=\"key\">\n")
			for _, it := range sec.Items {
				fmt.Fprintf(bw, "<li>%s</li>\n", e(it))
			}
			bw.WriteString("</ul>\n")
		}
		for _, t := range sec.Tables {
			for _, part := range splitWide(t, maxHTMLColumns) {
				writeHTMLTable(bw, part)
			}
		}
		if svg := svgs[sec.Chart]; svg != "" {
			// The SVG is made by this package, which escapes all its text.
			fmt.Fprintf(bw, "<figure>\n%s</figure>\n", svg)
		}
		bw.WriteString("</section>\n")
	}
	bw.WriteString("</body>\n</html>\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	return nil
}

func writeHTMLTable(bw *bufio.Writer, t table) {
	e := html.EscapeString
	labels := t.labels()
	bw.WriteString("<table>\n")
	if t.Caption != "" {
		fmt.Fprintf(bw, "<caption>%s</caption>\n", e(t.Caption))
	}
	bw.WriteString("<thead><tr>")
	for _, h := range t.Header {
		fmt.Fprintf(bw, "<th>%s</th>", e(h))
	}
	bw.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range t.Rows {
		bw.WriteString("<tr>")
		for i, c := range row {
			if i < labels {
				fmt.Fprintf(bw, "<td>%s</td>", e(c))
			} else {
				fmt.Fprintf(bw, "<td class=\"n\">%s</td>", e(c))
			}
		}
		bw.WriteString("</tr>\n")
	}
	bw.WriteString("</tbody>\n</table>\n")
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
