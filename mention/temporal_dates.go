// Absolute dates: days, months, years, seasons, decades and date ranges.

package mention

import "strconv"

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
	// "Tuesday 22 April", "Tue, April 22nd": a weekday beside a date names
	// that date (and, with no year given, picks the year it falls on).
	if wd, ok := p.weekdayName(i); ok {
		k := i + 1
		if p.is(k, ",") {
			k++
		}
		if a, j, ok := p.dateCore(k); ok && a.d > 0 {
			e.a, e.j, e.wd = a, j, wd+1
			return e, true
		}
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

// weekdayName reports the weekday (0 Sunday) token i names, in full or
// abbreviated.
func (p *tparser) weekdayName(i int) (int, bool) {
	if i >= len(p.t) {
		return 0, false
	}
	l := p.low(i)
	if wd, ok := weekdays[l]; ok {
		return wd, true
	}
	wd, ok := weekdayAbbr[l]
	return wd, ok && p.t[i].cap
}
