package mention

import (
	"strings"
	"time"
)

// ParseGold reads a LoCoMo gold temporal answer ("7 May 2023", "The sunday
// before 25 May 2023", "June 2023", "2022", "4 years") with the same tagger
// and resolver as Temporal, and returns the value of its longest temporal
// expression. It returns ok false when the answer holds no temporal
// expression with a value (names, "10 years ago", "A few years ago").
// Misspelt month names ("Janury") and glued days ("3June") are accepted.
func ParseGold(answer string) (string, bool) {
	s := "in " + fixMonthTypos(strings.ReplaceAll(strings.TrimSpace(answer), "`", ""))
	best := Mention{}
	for _, m := range (&tparser{text: s, t: tokenize(s), gold: true}).run(time.Time{}) {
		if m.End-m.Start > best.End-best.Start {
			best = m
		}
	}
	if best.Value == "" {
		return "", false
	}
	return best.Value, true
}

// fixMonthTypos replaces words one edit away from a month name (of five or
// more letters) with the month, when they are next to a number (see
// nearDigit): "Janury 2023", "21Janury, 2022" and "5th Agust" are fixed,
// the name "Marco" is not.
func fixMonthTypos(s string) string {
	var b strings.Builder
	changed := false
	i := 0
	for i < len(s) {
		if !isLetter(s[i]) || s[i] >= 0x80 {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && isLetter(s[j]) && s[j] < 0x80 {
			j++
		}
		w := s[i:j]
		if l := lower(w); len(l) >= 5 && nearDigit(s, i, j) {
			if _, ok := months[l]; !ok {
				for m := 1; m <= 12; m++ {
					if len(monthNames[m]) >= 5 && editOne(l, lower(monthNames[m])) {
						w, changed = monthNames[m], true
						break
					}
				}
			}
		}
		b.WriteString(w)
		i = j
	}
	if !changed {
		return s
	}
	return b.String()
}

// nearDigit reports whether the word s[i:j] is next to a number: glued to
// a digit, or separated from one only by spaces and commas, on either
// side. A number before may carry an ordinal suffix ("5th Agust").
func nearDigit(s string, i, j int) bool {
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == ',') {
		k++
	}
	if k < len(s) && isDigit(s[k]) {
		return true
	}
	k = i
	for k > 0 && (s[k-1] == ' ' || s[k-1] == ',') {
		k--
	}
	if k >= 3 && ordSuffix[lower(s[k-2:k])] && isDigit(s[k-3]) {
		return true
	}
	return k > 0 && isDigit(s[k-1])
}

// editOne reports whether a and b differ by exactly one insertion,
// deletion or substitution.
func editOne(a, b string) bool {
	if a == b {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		return a[i+1:] == b[i+1:]
	}
	return a[i:] == b[i+1:]
}
