package mention

import (
	"strconv"
	"strings"
	"time"
)

// Operations of a parsed temporal expression.
const (
	opDate    = iota + 1 // absolute date, month, year (a), range a..b
	opSeason             // season of a.y (y 0: unknown)
	opDeictic            // today + n days (yesterday, tomorrow, last night)
	opWeekday            // weekday wd relative to ref: dir -1 last, +1 next, 0 this/coming, 2 bare
	opUnit               // last/this/next unit (dir -1/0/+1); season when unit is 0
	opAgo                // n units ago (dir -1) / from now (dir +1)
	opAnchor             // wd/unit/n before (-1), after (+1), of (0) an absolute date a
	opPart               // ordinal (1..4, -1 last) week/weekend of month a
	opFixed              // value precomputed (durations, sets, ages, clock times)
	opClock              // time of day (tod) on the deictic day n
	opYearRel            // month/day a in the year ref+dir ("August last year")
	opHoliday            // holiday hol in year a.y (0: by the year-less date rule); dir as opUnit when rel
)

// dt is a calendar date; y 0 = year unknown, d 0 = month precision,
// m 0 = year precision.
type dt struct{ y, m, d int }

// expr is one parsed temporal expression over tokens [i, j).
type expr struct {
	i, j   int
	kind   Kind
	op     int
	a, b   dt
	wd     int
	n      int // count; -2 = "a few"
	unit   byte
	dir    int
	season string
	tod    string
	val    string
	tense  int // -1 past, +1 future, 0 unknown: the sentence's tense
	skip   int // leading tokens parsed but outside the span ("since" in "since I was 17")
	hol    string
	rel    bool // opHoliday: last/this/next <holiday>
}

type tparser struct {
	text string
	t    []tok
	// the tense of the last sentence looked at (sentences hold several
	// expressions; this keeps the scan linear)
	tenseOK  bool
	tenseAt  int
	tenseVal int
	// gold: the text is a gold answer (a noun phrase, not a sentence):
	// "in two weeks" stays the duration ParseGold's "in" prefix makes it
	gold bool
}

func (p *tparser) low(i int) string {
	if i >= 0 && i < len(p.t) {
		return p.t[i].low
	}
	return ""
}

func (p *tparser) is(i int, ws ...string) bool {
	l := p.low(i)
	for _, w := range ws {
		if l == w {
			return true
		}
	}
	return false
}

// glued reports whether token i follows token i-1 without whitespace.
func (p *tparser) glued(i int) bool { return i > 0 && i < len(p.t) && !p.t[i].space }

// temporal tags and resolves every temporal expression of text.
func temporal(text string, toks []tok, ref time.Time) []Mention {
	return (&tparser{text: text, t: toks}).run(ref)
}

// run tags and resolves the expressions of p's text against ref.
func (p *tparser) run(ref time.Time) []Mention {
	text, toks := p.text, p.t
	var out []Mention
	for i := 0; i < len(toks); {
		if toks[i].cls == tPunct {
			i++
			continue
		}
		e, ok := p.at(i)
		if !ok {
			i++
			continue
		}
		s := toks[e.i+e.skip].s
		m := Mention{Kind: e.kind, Text: text[s:toks[e.j-1].e], Start: s, End: toks[e.j-1].e}
		e.tense = p.tense(e.i)
		m.Value, m.Phrase = resolve(e, ref)
		out = append(out, m)
		i = e.j
	}
	return out
}

// at returns the longest temporal expression starting at token i.
func (p *tparser) at(i int) (expr, bool) {
	l := p.low(i)
	if !cueWords[l] && p.t[i].cls != tNum {
		if _, ok := months[l]; !ok {
			if _, ok := weekdays[l]; !ok {
				if _, ok := numberWords[l]; !ok {
					if _, ok := ordinals[l]; !ok {
						return expr{}, false
					}
				}
			}
		}
	}
	best := expr{j: -1}
	try := func(e expr, ok bool) {
		if ok && e.j > best.j {
			best = e
		}
	}
	try(p.anchored(i))
	try(p.absolute(i))
	try(p.relative(i))
	try(p.durationAt(i))
	try(p.ageAt(i))
	try(p.setAt(i))
	try(p.clockAt(i))
	try(p.holidayAt(i))
	if best.j <= i {
		return expr{}, false
	}
	best.i = i
	return best, true
}

// cueWords are the words a temporal expression can start with (besides
// numbers, number words, month and weekday names).
var cueWords = map[string]bool{
	"the": true, "a": true, "an": true, "last": true, "next": true, "this": true, "past": true,
	"yesterday": true, "today": true, "tomorrow": true, "tonight": true, "earlier": true, "later": true,
	"every": true, "each": true, "few": true, "couple": true, "several": true, "early": true, "mid": true,
	"late": true, "end": true, "beginning": true, "between": true, "week": true, "weekend": true,
	"summer": true, "winter": true, "spring": true, "fall": true, "autumn": true, "once": true, "twice": true,
	"daily": true, "weekly": true, "monthly": true, "yearly": true, "annually": true, "nightly": true,
	"when": true, "my": true, "his": true, "her": true, "their": true, "your": true, "our": true,
	"noon": true, "midnight": true, "age": true, "aged": true, "coming": true, "half": true,
	"sundays": true, "mondays": true, "tuesdays": true, "wednesdays": true, "thursdays": true,
	"fridays": true, "saturdays": true, "weekends": true, "years": true, "months": true, "weeks": true,
	"days": true, "day": true, "night": true, "s": true, "for": true, "on": true, "hours": true,
	"decades": true, "about": true, "around": true, "almost": true, "nearly": true, "over": true,
	"under": true, "roughly": true, "approximately": true, "just": true, "more": true, "less": true,
	"at": true, "close": true, "per": true, "since": true, "christmas": true, "xmas": true, "new": true,
	"halloween": true, "thanksgiving": true, "easter": true, "valentine": true, "valentines": true,
	"mother": true, "father": true, "mothers": true, "fathers": true, "independence": true,
}

// ---- absolute dates ----

// year parses a four-digit year 1900–2099 at i.
func (p *tparser) year(i int) (int, bool) {
	if i < len(p.t) && p.t[i].cls == tNum && p.t[i].e-p.t[i].s == 4 && p.t[i].num >= 1900 && p.t[i].num <= 2099 {
		return p.t[i].num, true
	}
	return 0, false
}

// dayNum parses a day of month 1–31 with an optional glued ordinal suffix;
// it returns the day and the index after it.
func (p *tparser) dayNum(i int) (int, int, bool) {
	if i < len(p.t) && p.t[i].cls == tNum && p.t[i].e-p.t[i].s <= 2 && p.t[i].num >= 1 && p.t[i].num <= 31 {
		j := i + 1
		if ordSuffix[p.low(j)] && p.glued(j) {
			j++
		}
		return p.t[i].num, j, true
	}
	if v, ok := ordinals[p.low(i)]; ok && v <= 31 {
		return v, i + 1, true
	}
	return 0, i, false
}

// month parses a month name at i. Ambiguous names (May, March, abbreviations)
// must be capitalised; "may" and "march" are accepted lower-case only when
// next to a day number or year (checked by the caller via strict). With
// strict (a bare month, with no day or year), "May" — or else the modal
// verb — is accepted only capitalised, not starting a sentence, and after
// one of mayPreps ("in May", "since May", "early May").
func (p *tparser) month(i int, strict bool) (int, int, bool) {
	if i >= len(p.t) || p.t[i].cls != tWord {
		return 0, i, false
	}
	m, ok := months[p.t[i].low]
	if !ok {
		return 0, i, false
	}
	l := p.t[i].low
	if len(l) <= 4 && l != "june" && l != "july" { // may, abbreviations
		if !p.t[i].cap && strict {
			return 0, i, false
		}
		if l == "may" && strict && (p.t[i].sent || !mayPreps[p.low(i-1)]) {
			return 0, i, false
		}
	}
	if (l == "march" || l == "august") && !p.t[i].cap && strict {
		return 0, i, false
	}
	j := i + 1
	if len(l) <= 4 && p.is(j, ".") && l != "may" && l != "june" && l != "july" {
		j++
	}
	return m, j, true
}

// optComma skips a comma or period (as in "7 May, 2023" or "April.2023").
func (p *tparser) optComma(j int) int {
	if p.is(j, ",", ".") {
		if _, ok := p.year(j + 1); ok {
			return j + 1
		}
	}
	return j
}

// dateCore parses an absolute date at i: "7 May 2023", "the 15th of
// December", "May 7th, 2023", "June 2021", "May 2023". It returns the
// date and the index after it.
func (p *tparser) dateCore(i int) (dt, int, bool) {
	j := i
	if p.is(j, "the") {
		j++
	}
	// D [of] MONTH [YEAR]
	if d, k, ok := p.dayNum(j); ok {
		if p.is(k, "of") {
			k++
		}
		if m, k2, ok := p.month(k, false); ok {
			r := dt{m: m, d: d}
			k2b := p.optComma(k2)
			if y, ok := p.year(k2b); ok {
				r.y = y
				return r, k2b + 1, true
			}
			return r, k2, true
		}
	}
	if j != i {
		return dt{}, i, false
	}
	// MONTH D [, YEAR] | MONTH [,] YEAR
	if m, k, ok := p.month(i, false); ok {
		if d, k2, ok := p.dayNum(k); ok && (k2 >= len(p.t) || !(p.t[k2].cls == tWord && units[p.t[k2].low] != 0)) {
			if p.t[k].cls == tNum || p.t[i].cap {
				r := dt{m: m, d: d}
				k3 := k2
				if p.is(k3, ",") {
					k3++
				}
				if y, ok := p.year(k3); ok {
					r.y = y
					return r, k3 + 1, true
				}
				return r, k2, true
			}
		}
		k2 := p.optComma(k)
		if p.is(k2, ",") {
			k2++
		}
		if y, ok := p.year(k2); ok {
			return dt{y: y, m: m}, k2 + 1, true
		}
	}
	return dt{}, i, false
}

// absolute parses dates, months, years, seasons and date ranges at i.
func (p *tparser) absolute(i int) (expr, bool) {
	e := expr{kind: Date, op: opDate}
	// ranges
	if p.is(i, "between", "from") {
		if a, j, ok := p.dateCore(i + 1); ok && p.is(j, "and", "to") {
			if b, k, ok := p.rangeEnd(a, j+1); ok {
				e.a, e.b, e.j = a, b, k
				fillYear(&e.a, &e.b)
				return e, true
			}
		}
		if d1, j, ok := p.dayNum(i + 1); ok && p.is(j, "and", "to") {
			if b, k, ok := p.dateCore(j + 1); ok && b.d > 0 {
				e.a, e.b, e.j = dt{b.y, b.m, d1}, b, k
				return e, true
			}
		}
		return e, false
	}
	if a, j, ok := p.dateCore(i); ok {
		e.a, e.j = a, j
		// "November 5-6, 2022", "October 30 to 31"
		if a.d > 0 && p.is(j, "-", "–", "to") {
			if d2, k, ok := p.dayNum(j + 1); ok && d2 > a.d {
				b := dt{a.y, a.m, d2}
				k2 := k
				if p.is(k2, ",") {
					k2++
				}
				if y, ok := p.year(k2); ok && a.y == 0 {
					e.a.y, b.y, k = y, y, k2+1
				}
				e.b, e.j = b, k
			}
		}
		return e, true
	}
	// "5-6 November 2022", "3rd to 9th April"
	if d1, j, ok := p.dayNum(i); ok && p.is(j, "-", "–", "to") {
		if b, k, ok := p.dateCore(j + 1); ok && b.d > d1 {
			e.a, e.b, e.j = dt{b.y, b.m, d1}, b, k
			return e, true
		}
	}
	// modifiers: early/mid/late/end of/beginning of MONTH|YEAR
	j := i
	switch {
	case p.is(j, "early", "late", "mid"):
		j++
		if p.is(j, "-") {
			j++
		}
	case p.is(j, "the") && p.is(j+1, "end", "beginning", "start", "middle") && p.is(j+2, "of"):
		j += 3
	case p.is(j, "end", "beginning", "start", "middle") && p.is(j+1, "of"):
		j += 2
	}
	if j > i {
		if a, k, ok := p.dateCore(j); ok {
			e.a, e.j = a, k
			return e, true
		}
		if m, k, ok := p.month(j, false); ok {
			e.a, e.j = dt{m: m}, k
			if y, ok := p.year(k); ok {
				e.a.y, e.j = y, k+1
			}
			return e, true
		}
		if y, ok := p.year(j); ok {
			e.a, e.j = dt{y: y}, j+1
			return e, true
		}
	}
	// seasons: "summer 2022", "the summer of 2022"
	k := i
	if p.is(k, "the") {
		k++
	}
	if s, ok := seasons[p.low(k)]; ok {
		k2 := k + 1
		if p.is(k2, "of") {
			k2++
		}
		if y, ok := p.year(k2); ok {
			return expr{kind: Date, op: opSeason, season: s, a: dt{y: y}, j: k2 + 1}, true
		}
	}
	// bare month: needs a preposition before it unless unambiguous & capitalised
	if m, k, ok := p.month(i, true); ok {
		if p.t[i].cap && len(p.t[i].low) > 4 || datePreps[p.low(i-1)] {
			e.a, e.j = dt{m: m}, k
			return e, true
		}
	}
	if v, k, ok := p.decade(i); ok {
		return expr{kind: Date, op: opFixed, val: v, j: k}, true
	}
	// "the year 2020", bare years after a preposition
	if p.is(i, "the") && p.is(i+1, "year") {
		if y, ok := p.year(i + 2); ok {
			e.a, e.j = dt{y: y}, i+3
			return e, true
		}
	}
	if y, ok := p.year(i); ok {
		if datePreps[p.low(i-1)] || p.is(i-1, "'s") || p.is(i-1, ",") && i >= 2 && (p.t[i-2].cls == tNum || months[p.low(i-2)] > 0) {
			e.a, e.j = dt{y: y}, i+1
			return e, true
		}
	}
	return e, false
}

// decade parses "the 90s", "the early 2010s", "the '80s", "the 1900s"
// (a century: every YY00s is read as one) and, after a preposition,
// "1990s". It returns the TIMEX3 value ("199", "19") and the index after.
func (p *tparser) decade(i int) (string, int, bool) {
	j := i
	the := p.is(j, "the")
	if the {
		j++
	}
	if p.is(j, "early", "mid", "late") {
		j++
		if p.is(j, "-") {
			j++
		}
	}
	if p.is(j, "'") && j+1 < len(p.t) && !p.t[j+1].space {
		j++
	}
	if j >= len(p.t) || p.t[j].cls != tNum || !p.is(j+1, "s") || !p.glued(j+1) {
		return "", i, false
	}
	n, digits := p.t[j].num, p.t[j].e-p.t[j].s
	switch {
	case digits == 4 && n >= 1000 && n <= 2090 && n%10 == 0 && (the || j == i && datePreps[p.low(i-1)]):
		if n%100 == 0 {
			return strconv.Itoa(n / 100), j + 2, true
		}
		return strconv.Itoa(n / 10), j + 2, true
	case digits == 2 && n%10 == 0 && the:
		y := 1900 + n
		if n < 30 {
			y = 2000 + n
		}
		return strconv.Itoa(y / 10), j + 2, true
	}
	return "", i, false
}

// rangeEnd parses the end of "between A and B": a full date, or a day
// number taking A's month and year.
func (p *tparser) rangeEnd(a dt, i int) (dt, int, bool) {
	if b, k, ok := p.dateCore(i); ok {
		return b, k, true
	}
	if d, k, ok := p.dayNum(i); ok && a.d > 0 {
		b := dt{a.y, a.m, d}
		k2 := k
		if p.is(k2, ",") {
			k2++
		}
		if y, ok := p.year(k2); ok {
			b.y = y
			k = k2 + 1
		}
		return b, k, true
	}
	return dt{}, i, false
}

func fillYear(a, b *dt) {
	if a.y == 0 && b.y != 0 {
		a.y = b.y
	}
	if b.y == 0 && a.y != 0 {
		b.y = a.y
	}
}

// ---- counts ----

// count parses "two", "3", "a", "a few", "a couple of", "several"; n -2
// means an unspecified few. It returns the index after the count.
func (p *tparser) count(i int, allowA bool) (int, int, bool) {
	l := p.low(i)
	switch l {
	case "a", "an":
		if p.is(i+1, "few") {
			return -2, i + 2, true
		}
		if p.is(i+1, "couple") {
			if p.is(i+2, "of") {
				return 2, i + 3, true
			}
			return 2, i + 2, true
		}
		if allowA {
			return 1, i + 1, true
		}
		return 0, i, false
	case "few", "several":
		return -2, i + 1, true
	case "couple":
		if p.is(i+1, "of") {
			return 2, i + 2, true
		}
	}
	if i < len(p.t) && p.t[i].num > 0 && p.t[i].num < 1000 {
		n := p.t[i].num
		j := i + 1
		// "twenty five", "twenty-five"
		if n >= 20 && n < 100 && n%10 == 0 && p.t[i].cls == tWord {
			k := j
			if p.is(k, "-") {
				k++
			}
			if k < len(p.t) && p.t[k].cls == tWord && p.t[k].num > 0 && p.t[k].num < 10 {
				n += p.t[k].num
				j = k + 1
			}
		}
		if p.t[i].cls == tNum && p.is(j, ".") && j+1 < len(p.t) && p.t[j+1].cls == tNum && p.glued(j) && p.glued(j+1) {
			return 0, i, false // decimals are not counts
		}
		return n, j, true
	}
	return 0, i, false
}

// ---- relative expressions ----

func (p *tparser) relative(i int) (expr, bool) {
	e := expr{kind: Relative}
	l := p.low(i)
	switch l {
	case "yesterday", "today", "tomorrow", "tonight":
		e.op, e.j = opDeictic, i+1
		e.n = map[string]int{"yesterday": -1, "today": 0, "tomorrow": 1, "tonight": 0}[l]
		if l == "tonight" {
			e.kind, e.op, e.tod = Time, opClock, "NI"
			return e, true
		}
		if tod, ok := timesOfDay[p.low(i+1)]; ok {
			e.j, e.tod = i+2, tod
		} else if p.is(i+1, "night") {
			e.j = i + 2
		}
		return e, true
	case "the":
		if p.is(i+1, "day") && p.is(i+2, "before") && p.is(i+3, "yesterday") {
			e.op, e.n, e.j = opDeictic, -2, i+4
			return e, true
		}
		if p.is(i+1, "day") && p.is(i+2, "after") && p.is(i+3, "tomorrow") {
			e.op, e.n, e.j = opDeictic, 2, i+4
			return e, true
		}
		if p.is(i+1, "past", "last") {
			// "the past weekend"; "the last week" is left to durations/anchors
			if p.is(i+2, "weekend") {
				e.op, e.unit, e.dir, e.j = opUnit, uWeekend, -1, i+3
				return e, true
			}
		}
		// "the next morning", "the following day": relative to an untold event
		if p.is(i+1, "next", "following") && p.is(i+2, "day", "morning", "afternoon", "evening", "night") {
			e.op, e.j = opFixed, i+3
			return e, true
		}
		if p.is(i+1, "weekend") { // "plans for the weekend": resolved like "this weekend"
			e.op, e.unit, e.dir, e.j = opUnit, uWeekend, 0, i+2
			return e, true
		}
		return e, false
	case "earlier", "later":
		if p.is(i+1, "today") {
			e.op, e.j = opDeictic, i+2
			return e, true
		}
		if p.is(i+1, "this", "last", "next") {
			if r, ok := p.relative(i + 1); ok && r.op == opUnit {
				return r, true
			}
		}
		return e, false
	case "last", "next", "this", "past", "coming":
		dir := map[string]int{"last": -1, "next": 1, "this": 0, "past": -1, "coming": 0}[l]
		j := i + 1
		if l == "this" && p.is(j, "past") {
			dir, j = -1, j+1
		} else if l == "this" && p.is(j, "coming") {
			j++
		}
		w := p.low(j)
		if wd, ok := weekdays[w]; ok {
			e.op, e.wd, e.dir, e.j = opWeekday, wd, dir, j+1
			if tod, ok := timesOfDay[p.low(j+1)]; ok {
				e.j, e.tod = e.j+1, tod
			}
			return e, true
		}
		if wd, ok := weekdayAbbr[w]; ok && l != "past" && l != "coming" {
			e.op, e.wd, e.dir, e.j = opWeekday, wd, dir, j+1
			if p.is(e.j, ".") && p.glued(e.j) {
				e.j++
			}
			return e, true
		}
		if w == "night" && dir == -1 {
			e.op, e.n, e.j = opDeictic, -1, j+1
			return e, true
		}
		if tod, ok := timesOfDay[w]; ok && l == "this" {
			e.kind, e.op, e.tod, e.j = Time, opClock, tod, j+1
			return e, true
		}
		if u, ok := units[w]; ok && (u == uWeek || u == uWeekend || u == uMonth || u == uYear) && w[len(w)-1] != 's' {
			if l == "last" && p.is(i-1, "the") && p.is(j+1, "of") {
				return e, false // "the last month of school": the final one
			}
			e.op, e.unit, e.dir, e.j = opUnit, u, dir, j+1
			return e, true
		}
		if s, ok := seasons[w]; ok {
			e.op, e.season, e.dir, e.j = opUnit, s, dir, j+1
			return e, true
		}
		if h, k := p.holiday(j); h != "" && l != "past" {
			e.op, e.hol, e.rel, e.dir, e.j = opHoliday, h, true, dir, k
			return e, true
		}
		if m, k, ok := p.month(j, false); ok && p.t[j].cap && l != "past" && l != "coming" {
			e.kind, e.op, e.a, e.dir, e.j = Relative, opUnit, dt{m: m}, dir, k
			e.unit = 0
			return e, true
		}
		return e, false
	case "on":
		return e, false
	}
	// bare weekdays: "on Friday", "Friday night"
	if wd, ok := weekdays[l]; ok && p.t[i].cap {
		e.op, e.wd, e.dir, e.j = opWeekday, wd, 2, i+1
		if tod, ok := timesOfDay[p.low(i+1)]; ok {
			e.j, e.tod = e.j+1, tod
		}
		return e, true
	}
	// "August last year", "May 5th this year", "June of next year"
	if _, ok := months[l]; ok && p.t[i].cap {
		a, k, ok := p.dateCore(i)
		if !ok || a.y != 0 {
			var m int
			if m, k, ok = p.month(i, false); !ok {
				return e, false
			}
			a = dt{m: m}
		}
		if p.is(k, "of") {
			k++
		}
		if p.is(k, "last", "this", "next") && p.is(k+1, "year") {
			e.op, e.a, e.j = opYearRel, a, k+2
			e.dir = map[string]int{"last": -1, "this": 0, "next": 1}[p.low(k)]
			return e, true
		}
		return e, false
	}
	// a bare "weekend" after a possessive or "any" ("any weekend plans?")
	if l == "weekend" && (p.t[i].sent || weekendDets[p.low(i-1)]) {
		e.op, e.unit, e.j = opUnit, uWeekend, i+1
		return e, true
	}
	// N units ago / back / from now
	if n, j, ok := p.count(i, true); ok {
		if u, ok := units[p.low(j)]; ok {
			if p.is(j+1, "ago") || p.is(j+1, "back") && !notBack[p.low(j+2)] {
				e.op, e.n, e.unit, e.dir, e.j = opAgo, n, u, -1, j+2
				return e, true
			}
			if p.is(j+1, "from") && p.is(j+2, "now") {
				e.op, e.n, e.unit, e.dir, e.j = opAgo, n, u, 1, j+3
				return e, true
			}
		}
	}
	return e, false
}

var weekendDets = map[string]bool{"any": true, "your": true, "my": true, "our": true, "his": true, "her": true, "their": true}

// notBack are words after which "back" is an adverb of place, not "ago"
// ("a week back home").
var notBack = map[string]bool{"home": true, "in": true, "at": true, "to": true, "from": true, "on": true, "into": true,
	"there": true, "here": true, "up": true, "down": true, "out": true, "inside": true,
	"where": true}

// ---- anchored expressions: "the Sunday before 25 May 2023" ----

func (p *tparser) anchored(i int) (expr, bool) {
	e := expr{kind: Date, op: opAnchor}
	j := i
	for p.is(j, "the", "on", "a", "one", "last") && j < i+2 {
		if p.is(j, "last") && (!p.is(j+1, "week") || p.is(j+2, "of")) {
			break
		}
		j++
	}
	w := p.low(j)
	switch {
	case weekdays[w] > 0 || w == "sunday":
		e.wd, e.unit = weekdays[w], 0
		j++
	case w == "week" || w == "weekend" || w == "day" || w == "night":
		e.unit = units[w]
		e.n = 1
		j++
	default:
		if n, k, ok := p.count(j, false); ok {
			if u, ok := units[p.low(k)]; ok && (u == uDay || u == uWeek || u == uWeekend || u == uMonth || u == uYear) {
				e.n, e.unit = n, u
				j = k + 1
				break
			}
		}
		// "first week of", "last weekend of"
		if o, ok := ordinals[w]; ok || w == "last" {
			if w == "last" {
				o = -1
			}
			if u := units[p.low(j+1)]; (u == uWeek || u == uWeekend) && p.is(j+2, "of") {
				if a, k, ok := p.dateCore(j + 3); ok && a.d == 0 {
					return expr{kind: Date, op: opPart, n: o, unit: u, a: a, j: k}, true
				}
				if m, k, ok := p.month(j+3, false); ok {
					return expr{kind: Date, op: opPart, n: o, unit: u, a: dt{m: m}, j: k}, true
				}
			}
		}
		return e, false
	}
	switch p.low(j) {
	case "before":
		e.dir = -1
	case "after":
		e.dir = 1
	case "of":
		e.dir = 0
		if e.unit != uWeek && e.unit != uWeekend && e.unit != uNight {
			return e, false
		}
	default:
		return e, false
	}
	if e.unit == uNight && e.dir != 0 {
		return e, false
	}
	a, k, ok := p.dateCore(j + 1)
	if !ok && (e.unit == uYear || e.unit == uMonth) && e.dir != 0 {
		if y, yok := p.year(j + 1); yok {
			a, k, ok = dt{y: y}, j+2, true
		}
	}
	switch {
	case !ok:
		return e, false
	case e.unit == uYear || e.unit == uMonth:
		if e.dir == 0 || e.unit == uMonth && a.m == 0 {
			return e, false
		}
	case a.d == 0 && !(e.unit == uDay && e.n < 0 && a.m > 0):
		return e, false
	}
	e.a, e.j = a, k
	// "the week of April 3rd to 9th", "the night of October 30 to 31, 2022"
	if a.d > 0 && e.dir == 0 && p.is(k, "to", "-", "–") {
		if d2, k2, ok := p.dayNum(k + 1); ok && d2 > a.d {
			b := dt{a.y, a.m, d2}
			k3 := k2
			if p.is(k3, ",") {
				k3++
			}
			if y, ok := p.year(k3); ok {
				e.a.y, b.y, k2 = y, y, k3+1
			}
			return expr{kind: Date, op: opDate, a: e.a, b: b, j: k2}, true
		}
	}
	return e, true
}

// ---- durations ----

var durPreps = map[string]bool{"for": true, "in": true, "over": true, "within": true, "nearly": true,
	"almost": true, "about": true, "around": true, "after": true, "than": true, "spent": true,
	"past": true, "last": true, "only": true, "just": true, "took": true, "takes": true, "been": true}

func (p *tparser) durationAt(i int) (expr, bool) {
	// "about a year", "just under a year", "more than two weeks": the
	// approximator is inside the span (TIMEX3 MOD), the value is unchanged
	if k := p.approx(i); k > i && !p.is(k, "the") {
		if e, ok := p.durationFrom(k, true); ok && e.kind == Duration {
			return e, true
		}
		return expr{}, false
	}
	return p.durationFrom(i, durPreps[p.low(i-1)])
}

// approx returns the index after an approximator at i ("about", "just
// over", "more than", "a little under"), or i.
func (p *tparser) approx(i int) int {
	switch p.low(i) {
	case "about", "around", "almost", "nearly", "roughly", "approximately", "over", "under":
		return i + 1
	case "just", "a":
		k := i + 1
		if p.is(i, "a") {
			if !p.is(k, "little", "bit") {
				return i
			}
			k++
		}
		if p.is(k, "over", "under") {
			return k + 1
		}
	case "more", "less":
		if p.is(i+1, "than") {
			return i + 2
		}
	case "at":
		if p.is(i+1, "least", "most") {
			return i + 2
		}
	case "close":
		if p.is(i+1, "to") {
			return i + 2
		}
	}
	return i
}

// standaloneUnits may follow a bare "a"/"an" as a duration ("a week full
// of laughs"); "a day", "a night", "a minute" are too often idioms.
var standaloneUnits = map[string]bool{"week": true, "month": true, "year": true, "decade": true, "hour": true}

// durationFrom parses a duration at i; allowA admits the count "a" before
// any unit (after "for", "in", "took", …).
func (p *tparser) durationFrom(i int, allowA bool) (expr, bool) {
	e := expr{kind: Duration, op: opFixed}
	j := i
	explicit := false
	if p.is(j, "the") && p.is(j+1, "past", "last", "next") {
		j += 2
		explicit = true
	}
	if p.is(i, "half") && p.is(i+1, "an", "a") && p.is(i+2, "hour") {
		e.val, e.j = "PT30M", i+3
		return e, true
	}
	n, k, ok := p.count(j, explicit || allowA)
	// a bare "a week" ("a week full of laughs"), but not distributive ("5
	// miles a week") nor evaluative ("what a week!", "quite a week")
	if !ok && p.is(j, "a", "an") && standaloneUnits[p.low(j+1)] && !p.distributive(j) && !p.is(j-1, "quite", "what", "such", "helluva") {
		n, k, ok = 1, j+1, true
	}
	if !ok {
		// "in the last month", "over the past year": a duration of one unit
		// ("last month" alone is the previous calendar month)
		if explicit && !p.is(i+1, "next") {
			if u, ok := units[p.low(j)]; ok && standaloneUnits[p.low(j)] && !p.is(j+1, "of", "before", "after") {
				e.val, e.j = durValue(1, u), j+1
				return e, true
			}
		}
		// "for years", "for months"
		if p.is(i-1, "for", "in", "over", "spent", "spend", "spending", "took", "takes") {
			if u, ok := units[p.low(i)]; ok && u != uNight && p.low(i)[len(p.low(i))-1] == 's' {
				e.val, e.j = durValue(-2, u), i+1
				return e, true
			}
		}
		return e, false
	}
	if p.is(k, "-") { // "3-day", "two-week"
		if u, ok := units[p.low(k+1)]; ok {
			if p.is(k+2, "-") && p.is(k+3, "old") {
				return expr{kind: Age, op: opFixed, val: durValue(n, u), j: k + 4}, true
			}
			e.val, e.j = durValue(n, u), k+2
			return e, true
		}
		return e, false
	}
	if p.is(k, "and") && p.is(k+1, "a") && p.is(k+2, "half") {
		k += 3
	}
	if p.is(k, "more", "whole", "full") {
		k++
	}
	u, ok := units[p.low(k)]
	if !ok {
		return e, false
	}
	if p.is(j, "one") && !explicit && !allowA {
		return e, false // "one day I'll ..."
	}
	switch p.low(k + 1) {
	case "ago", "before", "after", "from", "earlier", "old":
		if p.is(k+1, "old") {
			return expr{kind: Age, op: opFixed, val: durValue(n, u), j: k + 2}, true
		}
		return e, false
	case "of":
		if p.is(k+2, "age") {
			return expr{kind: Age, op: opFixed, val: durValue(n, u), j: k + 3}, true
		}
	}
	if n == 1 && p.is(j, "a", "an") && u == uNight {
		return e, false
	}
	if u == uNight && !p.is(i-1, "for") {
		return e, false
	}
	if p.is(k+1, "later") {
		return expr{kind: Relative, op: opFixed, j: k + 2}, true // relative to an untold event
	}
	e.j = k + 1
	// "in two weeks", "see you in a month": a point after ref, unless the
	// sentence is past or negated ("finished it in a week", "haven't
	// talked in a few days")
	// nor a span of time ("the first time in a year", "twice in a week")
	if p.is(i-1, "in") && !explicit && !p.gold && (u == uDay || u == uWeek || u == uMonth || u == uYear || u == uDecade) &&
		!p.is(i-2, "time", "times", "once", "twice", "first", "best", "worst", "most") && p.tense(i) >= 0 && !p.negated(i) {
		return expr{kind: Relative, op: opAgo, n: n, unit: u, dir: 1, j: e.j}, true
	}
	e.val = durValue(n, u)
	return e, true
}

// negated reports whether the sentence around token i has a negation.
func (p *tparser) negated(i int) bool {
	lo := i
	for lo > 0 && !p.t[lo].sent {
		lo--
	}
	for k := lo; k < len(p.t) && (k == lo || !p.t[k].sent); k++ {
		l := p.t[k].low
		if l == "not" || l == "never" || l == "no" || strings.HasSuffix(l, "n't") || strings.HasSuffix(l, "n’t") {
			return true
		}
	}
	return false
}

// durValue formats an ISO 8601 duration; n -2 gives an unspecified
// quantity (PXY).
func durValue(n int, u byte) string {
	q := "X"
	if n >= 0 {
		q = strconv.Itoa(n)
	}
	switch u {
	case uHour:
		return "PT" + q + "H"
	case uMinute:
		return "PT" + q + "M"
	case uSecond:
		return "PT" + q + "S"
	case uDecade:
		if n >= 0 {
			return "P" + strconv.Itoa(10*n) + "Y"
		}
		return "PXDE"
	case uWeekend:
		return "P" + q + "WE"
	case uNight:
		return "P" + q + "D"
	}
	return "P" + q + string(u)
}

// ---- ages ----

var possessives = map[string]bool{"my": true, "his": true, "her": true, "their": true, "your": true, "our": true, "'s": true}

func (p *tparser) ageAt(i int) (expr, bool) {
	e := expr{kind: Age, op: opFixed}
	l := p.low(i)
	if possessives[l] {
		// "my 18th birthday"
		j := i + 1
		var n int
		if i+1 < len(p.t) && p.t[j].cls == tNum && ordSuffix[p.low(j+1)] && p.glued(j+1) {
			n, j = p.t[j].num, j+2
		} else if v, ok := ordinals[p.low(j)]; ok {
			n, j = v, j+1
		} else {
			return e, false
		}
		if p.is(j, "birthday", "bday", "b-day") {
			e.val, e.j = "P"+strconv.Itoa(n)+"Y", j+1
			return e, true
		}
		return e, false
	}
	// "when I was 10"; "since I was 17" (since, a preposition, is outside the span)
	if (l == "when" || l == "since") && p.is(i+1, "i", "he", "she", "we", "they", "you") && p.is(i+2, "was", "were") {
		if l == "since" {
			e.skip = 1
		}
		j := i + 3
		if p.is(j, "about", "around", "only", "just") {
			j++
		}
		if n, k, ok := p.count(j, false); ok && n > 0 && n < 120 {
			if u, ok := units[p.low(k)]; ok && u != uYear {
				return e, false // "when I was 5 minutes late"
			}
			if p.is(k, "years", "year") {
				k++
				if p.is(k, "old") {
					k++
				}
			}
			e.val, e.j = "P"+strconv.Itoa(n)+"Y", k
			return e, true
		}
		return e, false
	}
	if l == "age" || l == "aged" {
		if i+1 < len(p.t) && p.t[i+1].num > 0 && p.t[i+1].num < 120 {
			e.val, e.j = "P"+strconv.Itoa(p.t[i+1].num)+"Y", i+2
			return e, true
		}
	}
	if l == "the" && p.is(i+1, "age") && p.is(i+2, "of") && i+3 < len(p.t) && p.t[i+3].num > 0 && p.t[i+3].num < 120 {
		e.val, e.j = "P"+strconv.Itoa(p.t[i+3].num)+"Y", i+4
		return e, true
	}
	return e, false
}

// ---- sets ----

func (p *tparser) setAt(i int) (expr, bool) {
	e := expr{kind: Set, op: opFixed}
	l := p.low(i)
	switch l {
	case "every", "each":
		j := i + 1
		step := 1
		if p.is(j, "other") {
			step, j = 2, j+1
		} else if n, k, ok := p.count(j, false); ok {
			step, j = n, k
		}
		w := p.low(j)
		if wd, ok := weekdays[w]; ok {
			e.val, e.j = "XXXX-WXX-"+strconv.Itoa(isoDay(wd)), j+1
			if tod, ok := timesOfDay[p.low(j+1)]; ok {
				e.val, e.j = e.val+"T"+tod, e.j+1
			}
			return e, true
		}
		if tod, ok := timesOfDay[w]; ok {
			e.val, e.j = "XXXX-XX-XXT"+tod, j+1
			return e, true
		}
		if s, ok := seasons[w]; ok {
			e.val, e.j = "XXXX-"+s, j+1
			return e, true
		}
		if u, ok := units[w]; ok && u != uSecond && u != uMinute {
			if u == uWeekend {
				e.val, e.j = "XXXX-WXX-WE", j+1
				return e, true
			}
			e.val, e.j = durValue(step, u), j+1
			return e, true
		}
		if w == "weekday" || w == "weekdays" {
			e.val, e.j = "XXXX-WXX-WD", j+1
			return e, true
		}
		return e, false
	case "daily", "nightly":
		e.val, e.j = "P1D", i+1
		return e, true
	case "weekly":
		e.val, e.j = "P1W", i+1
		return e, true
	case "monthly":
		e.val, e.j = "P1M", i+1
		return e, true
	case "yearly", "annually":
		e.val, e.j = "P1Y", i+1
		return e, true
	case "once", "twice":
		if p.is(i+1, "a", "per", "every") {
			if u, ok := units[p.low(i+2)]; ok {
				e.val, e.j = durValue(1, u), i+3
				return e, true
			}
		}
		return e, false
	case "weekends":
		if p.is(i-1, "on", "at", "during", "over", "most") {
			e.val, e.j = "XXXX-WXX-WE", i+1
			return e, true
		}
		return e, false
	case "the": // plurals are habitual: "on the weekends", "in the evenings"
		if p.is(i+1, "weekends") {
			e.val, e.j = "XXXX-WXX-WE", i+2
			return e, true
		}
		if tod, ok := todPlural[p.low(i+1)]; ok {
			e.val, e.j = "XXXX-XX-XXT"+tod, i+2
			return e, true
		}
		return e, false
	case "a", "an", "per": // "two ginger snaps a day", "$20 per hour"
		if u, ok := units[p.low(i+1)]; ok && distribUnits[p.low(i+1)] && p.distributive(i) {
			e.val, e.j = durValue(1, u), i+2
			if u == uWeekend {
				e.val = "P1WE"
			}
			return e, true
		}
	}
	if wd, ok := weekdayPlural[l]; ok && p.t[i].cap {
		e.val, e.j = "XXXX-WXX-"+strconv.Itoa(isoDay(wd)), i+1
		return e, true
	}
	if n, k, ok := p.count(i, false); ok && (n > 0 || n == -2) && p.is(k, "times") && p.is(k+1, "a", "per") {
		if u, ok := units[p.low(k+2)]; ok {
			e.val, e.j = durValue(1, u), k+3
			return e, true
		}
	}
	return e, false
}

var todPlural = map[string]string{"mornings": "MO", "afternoons": "AF", "evenings": "EV", "nights": "NI"}

var distribUnits = map[string]bool{"day": true, "week": true, "weekend": true, "month": true, "year": true, "hour": true}

// distributive reports whether "a"/"an"/"per" at i means "in every" ("two
// snacks a day", "8 hours a day", "per week"): "per" always does; "a" when
// it follows a number or a plural noun that a count precedes in the same
// clause.
func (p *tparser) distributive(i int) bool {
	if i == 0 || p.t[i].sent {
		return false
	}
	if p.is(i, "per") {
		return true
	}
	prev := p.t[i-1]
	if prev.cls == tNum {
		return true
	}
	l := prev.low
	if prev.cls != tWord || len(l) < 3 || l[len(l)-1] != 's' || l[len(l)-2] == 's' || notDistrib[l] {
		return false
	}
	if _, form := verbLemma(l); form == formS && verbContext(p.t, i-1) {
		return false // "she takes a year off"
	}
	for k := i - 2; k >= 0 && k >= i-5; k-- {
		if p.t[k].cls == tPunct || p.t[k+1].sent {
			return false
		}
		if p.t[k].num > 0 || p.is(k, "few", "several", "couple", "dozen", "many", "lots") {
			return true
		}
	}
	return false
}

var notDistrib = map[string]bool{"is": true, "was": true, "has": true, "does": true, "its": true, "this": true,
	"his": true, "us": true, "yes": true, "plus": true, "always": true, "sometimes": true, "perhaps": true,
	"as": true}

func isoDay(wd int) int {
	if wd == 0 {
		return 7
	}
	return wd
}

// ---- clock times ----

func (p *tparser) clockAt(i int) (expr, bool) {
	e := expr{kind: Time, op: opFixed}
	l := p.low(i)
	if l == "noon" || l == "midday" {
		e.val, e.j = "T12:00", i+1
		return e, true
	}
	if l == "midnight" {
		e.val, e.j = "T24:00", i+1
		return e, true
	}
	if i >= len(p.t) || p.t[i].cls != tNum || p.t[i].num < 1 || p.t[i].num > 24 || p.t[i].e-p.t[i].s > 2 {
		return e, false
	}
	h, mm, j := p.t[i].num, 0, i+1
	hasMin := false
	if p.is(j, ":") && j+1 < len(p.t) && p.t[j+1].cls == tNum && p.t[j+1].e-p.t[j+1].s == 2 && p.glued(j) && p.glued(j+1) {
		mm, j, hasMin = p.t[j+1].num, j+2, true
		if mm > 59 {
			return e, false
		}
	}
	switch {
	case p.is(j, "am", "pm"):
		if p.is(j, "pm") && h < 12 {
			h += 12
		}
		if p.is(j, "am") && h == 12 {
			h = 0
		}
		j++
	case p.is(j, "a", "p") && p.is(j+1, ".") && p.is(j+2, "m"):
		if p.is(j, "p") && h < 12 {
			h += 12
		}
		j += 3
		if p.is(j, ".") && p.glued(j) {
			j++
		}
	case p.is(j, "o'clock"):
		j++
	case hasMin && p.is(i-1, "at", "around", "by", "until", "till", "from", "before", "after"):
	default:
		return e, false
	}
	if h > 24 {
		return e, false
	}
	e.val = "T" + two(h) + ":" + two(mm)
	e.j = j
	if tod, ok := timesOfDay[p.low(j)]; ok && p.is(j-1, "am", "pm") == false {
		_ = tod
	}
	return e, true
}

func two(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
