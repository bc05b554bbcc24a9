package report

import (
	"bufio"
	"fmt"
	"html/template"
	"io"

	"github.com/swcmem/swc/bench"
)

// htmlSection is a section with its chart, if any, as trusted SVG.
type htmlSection struct {
	section
	SVG template.HTML
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:Arial,Helvetica,sans-serif;margin:2em auto;max-width:64em;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
nav a{margin-right:1em}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}
caption{text-align:left;font-style:italic;padding:.3em 0}
th,td{padding:.25em .6em;border-bottom:1px solid #e5e5e5;vertical-align:top}
th{background:#f5f5f5;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr:last-child td{border-bottom:none}
.wide{overflow-x:auto}
figure{margin:1em 0}figure svg{max-width:100%;height:auto}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<nav>{{range .Sections}}<a href="#{{.ID}}">{{.Title}}</a> {{end}}</nav>
{{range .Sections}}
<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{range .Text}}<p>{{.}}</p>
{{end}}{{range .Tables}}{{$labels := .Labels}}<div class="wide"><table>
{{if .Caption}}<caption>{{.Caption}}</caption>
{{end}}<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range $i, $c := .}}{{if lt $i $labels}}<td>{{$c}}</td>{{else}}<td class="n">{{$c}}</td>{{end}}{{end}}</tr>
{{end}}</tbody>
</table></div>
{{end}}{{if .SVG}}<figure>
{{.SVG}}</figure>
{{end}}</section>
{{end}}
</body>
</html>
`))

// HTML writes s as report.html: one self-contained page (inline CSS, no
// scripts, no external resources) with the tables of Markdown and four
// inline SVG charts drawn with gonum/plot — scores per category with CI
// whiskers, category 2 per conversation, tiers per conversation and
// tokens per question — each left out when it has no data. It returns an
// error when a chart cannot be drawn or writing fails.
func HTML(w io.Writer, s *bench.Summary) error {
	svgs, err := charts(s)
	if err != nil {
		return err
	}
	var secs []htmlSection
	for _, sec := range sections(s) {
		for i := range sec.Tables {
			sec.Tables[i].Labels = sec.Tables[i].labels()
		}
		// The SVG comes from gonum's vgsvg, which escapes all text.
		secs = append(secs, htmlSection{section: sec, SVG: template.HTML(svgs[sec.Chart])})
	}
	bw := bufio.NewWriter(w)
	if err := page.Execute(bw, struct {
		Title    string
		Sections []htmlSection
	}{Title, secs}); err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: html: %w", err)
	}
	return nil
}
