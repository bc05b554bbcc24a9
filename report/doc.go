package report

// A section is one part of the report, rendered as a heading, paragraphs
// and tables in Markdown and HTML alike.
type section struct {
	ID    string // anchor and chart placement key
	Title string
	// Caveats are warnings shown before everything else in the section.
	Caveats []string
	Text    []string // plain-text paragraphs
	Items   []string // a short list shown before the tables (key results)
	Tables  []table
	// Chart names the chart the HTML page draws after the tables ("" for
	// none); see charts.
	Chart string
}

// A table is a caption, a header and rows of preformatted cells.
type table struct {
	Caption string
	Header  []string
	Rows    [][]string
	// Labels is how many leading columns hold text (left-aligned); the
	// rest are numbers (right-aligned). 0 means 1.
	Labels int
}

// labels returns the number of left-aligned leading columns.
func (t table) labels() int {
	if t.Labels <= 0 {
		return 1
	}
	return t.Labels
}
