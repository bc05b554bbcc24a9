package selection

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A day is a calendar date named in a question.
type day struct {
	y int
	m time.Month
	d int
}

var months = map[string]time.Month{}

func init() {
	for m := time.January; m <= time.December; m++ {
		name := strings.ToLower(m.String())
		months[name], months[name[:3]] = m, m
	}
	months["sept"] = time.September
}

const monthRE = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`

var (
	dottedRE = regexp.MustCompile(`\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b`)                                   // 10.01.2024: day first
	isoRE    = regexp.MustCompile(`\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b`)                               // 2024-01-10
	dayMonRE = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)? (?:of )?` + monthRE + `,? (\d{4})\b`) // 7 July, 2023
	monDayRE = regexp.MustCompile(`(?i)\b` + monthRE + ` (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b`)         // April 10, 2023
)

// namedDays returns the calendar dates a question names in full (day,
// month and year): "10.01.2024" (day first, as written outside the
// United States; a slash date is left alone, its order unknown),
// "2024-01-10", "7 July, 2023", "April 10th, 2023"; each once, in order.
func namedDays(q string) []day {
	var out []day
	add := func(y, m, d int) {
		if m < 1 || m > 12 || d < 1 || d > 31 {
			return
		}
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if t.Day() != d {
			return // 31 April
		}
		k := day{y, time.Month(m), d}
		for _, o := range out {
			if o == k {
				return
			}
		}
		out = append(out, k)
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	for _, g := range dottedRE.FindAllStringSubmatch(q, -1) {
		add(num(g[3]), num(g[2]), num(g[1]))
	}
	for _, g := range isoRE.FindAllStringSubmatch(q, -1) {
		add(num(g[1]), num(g[2]), num(g[3]))
	}
	for _, g := range dayMonRE.FindAllStringSubmatch(q, -1) {
		add(num(g[3]), int(months[strings.ToLower(g[2])]), num(g[1]))
	}
	for _, g := range monDayRE.FindAllStringSubmatch(q, -1) {
		add(num(g[3]), int(months[strings.ToLower(g[1])]), num(g[2]))
	}
	return out
}

// time returns day k at midnight UTC.
func (k day) time() time.Time { return time.Date(k.y, k.m, k.d, 0, 0, 0, 0, time.UTC) }

// on reports whether t falls on day k (in t's own location).
func (k day) on(t time.Time) bool {
	y, m, d := t.Date()
	return !t.IsZero() && y == k.y && m == k.m && d == k.d
}
