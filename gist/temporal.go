package gist

import "strings"

// hasTemporalFallback reports whether s contains a common temporal
// expression of chat. It is the Extractive gister's fallback when no
// Temporal function is injected (the CLI injects the richer mention
// tagger). It recognises: yesterday, today, tonight, tomorrow, weekend(s);
// weekdays; month names and abbreviations, capitalised (May only next to a
// number or after in/of/early/mid/late/last/next/this, so the verb "may"
// is no date); last/next/this/past/coming/previous [few] + a period or a
// weekday; "<unit> ago"; years 1900–2099 ("2019", "1990s"); clock times
// ("9pm", "9:30 am"); numeric dates ("05/07/2023", "2023-05-07").
func hasTemporalFallback(s string) bool {
	ws := splitWords(s)
	for i, w := range ws {
		prev, next := "", ""
		if i > 0 {
			prev = ws[i-1].low
		}
		if i+1 < len(ws) {
			next = ws[i+1].low
		}
		switch {
		case dayWords[w.low], weekdays[w.low], months[w.raw]:
			return true
		case w.raw == "May":
			if mayBefore[prev] || isDayNumber(prev) || isDayNumber(next) {
				return true
			}
		case relative[w.low]:
			if next == "few" && i+2 < len(ws) {
				next = ws[i+2].low
			}
			if periods[next] || weekdays[next] {
				return true
			}
		case w.low == "ago":
			if units[prev] {
				return true
			}
		case isYear(w.low), isClock(w.low, next), isNumericDate(w.low):
			return true
		}
	}
	return false
}

var (
	dayWords  = setOf("yesterday today tonight tomorrow weekend weekends")
	weekdays  = setOf("monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays")
	months    = setOf("January February March April June July August September October November December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec")
	mayBefore = setOf("in of early mid late last next this")
	relative  = setOf("last next this past coming previous")
	periods   = setOf("night morning evening afternoon week weekend month year summer winter spring fall autumn day days weeks months years")
	units     = setOf("day days week weeks month months year years hour hours minute minutes decade decades")
	meridiem  = setOf("am pm")
)

// isDayNumber reports whether w is a day of the month: "7", "21st".
func isDayNumber(w string) bool {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		w = strings.TrimSuffix(w, suf)
	}
	return allDigits(w) && len(w) <= 2
}

// isYear reports whether w is a year 1900–2099 or a decade ("1990s").
func isYear(w string) bool {
	w = strings.TrimSuffix(w, "s")
	return len(w) == 4 && allDigits(w) && (w[:2] == "19" || w[:2] == "20")
}

// isClock reports whether w (with the next word) is a clock time: "9pm",
// "9:30pm", "9 am", "9:30".
func isClock(w, next string) bool {
	if h, m, ok := strings.Cut(w, ":"); ok {
		return allDigits(h) && len(h) <= 2 && len(m) >= 2 && allDigits(m[:2]) && (len(m) == 2 || meridiem[m[2:]])
	}
	for _, suf := range []string{"am", "pm"} {
		if d, ok := strings.CutSuffix(w, suf); ok && allDigits(d) && len(d) <= 2 {
			return true
		}
	}
	return allDigits(w) && len(w) <= 2 && (next == "am" || next == "pm")
}

// isNumericDate reports whether w is d/m/y-like: three digit groups
// joined by '/' or '-'.
func isNumericDate(w string) bool {
	parts := strings.FieldsFunc(w, func(r rune) bool { return r == '/' || r == '-' })
	if len(parts) != 3 || strings.Count(w, "/")+strings.Count(w, "-") != 2 {
		return false
	}
	for _, p := range parts {
		if !allDigits(p) {
			return false
		}
	}
	return true
}
