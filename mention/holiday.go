package mention

import "time"

// Holidays are temporal (date) mentions, not entities: "Christmas" is the
// 25 December of the year a year-less date would take (see fillDate),
// "last Christmas" the latest one before the reference day.

// holidayLen returns the number of tokens of the holiday name starting at
// toks[i] ("Christmas", "New Year's Eve", "Valentine's Day") and its key,
// or 0 and "".
func holidayLen(toks []tok, i int) (int, string) {
	at := func(k int) string {
		if k < len(toks) {
			return toks[k].low
		}
		return ""
	}
	day := func(k int, key string) (int, string) { // an optional "Eve"/"Day" after the name
		switch at(k) {
		case "day":
			return k + 1 - i, key
		case "eve":
			if key == "christmas" {
				return k + 1 - i, "christmaseve"
			}
		}
		return k - i, key
	}
	switch at(i) {
	case "christmas", "xmas":
		return day(i+1, "christmas")
	case "halloween":
		return 1, "halloween"
	case "thanksgiving":
		return day(i+1, "thanksgiving")
	case "easter":
		if at(i+1) == "sunday" {
			return 2, "easter"
		}
		return day(i+1, "easter")
	case "new":
		k := i + 1
		if at(k) != "year" && at(k) != "years" {
			return 0, ""
		}
		k++
		if at(k) == "'s" {
			k++
		}
		switch {
		case at(k) == "eve":
			return k + 1 - i, "newyeareve"
		case at(k) == "day":
			return k + 1 - i, "newyear"
		case toks[i+1].cap || i > 0 && toks[i-1].low == "happy":
			return k - i, "newyear"
		}
	case "valentine", "valentines":
		k := i + 1
		if at(k) == "'s" {
			k++
		}
		if at(k) == "day" {
			return k + 1 - i, "valentine"
		}
		if k > i+1 && toks[i].cap {
			return k - i, "valentine" // "on Valentine's"
		}
	case "mother", "mothers", "father", "fathers":
		k := i + 1
		if at(k) == "'s" {
			k++
		}
		if at(k) == "day" && toks[i].cap {
			return k + 1 - i, at(i)[:6]
		}
	case "independence":
		if at(i+1) == "day" && toks[i].cap {
			return 2, "independence"
		}
	}
	return 0, ""
}

// holiday returns the key of a holiday named at token i and the index
// after it. A holiday name used as a modifier of a common noun
// ("Thanksgiving dinner", "the Christmas magic") is not a time reference
// and gives "".
func (p *tparser) holiday(i int) (string, int) {
	n, key := holidayLen(p.t, i)
	if n == 0 {
		return "", i
	}
	if k := i + n; k < len(p.t) && p.t[k].cls == tWord && !p.t[k].cap && !holidayFollow[p.t[k].low] {
		return "", i
	}
	return key, i + n
}

// holidayAt parses "Christmas", "Thanksgiving 2022", "New Year's Eve".
func (p *tparser) holidayAt(i int) (expr, bool) {
	key, j := p.holiday(i)
	if key == "" {
		return expr{}, false
	}
	e := expr{kind: Date, op: opHoliday, hol: key, j: j}
	k := j
	if p.is(k, ",", "of") {
		k++
	}
	if y, ok := p.year(k); ok {
		e.a.y, e.j = y, k+1
	}
	return e, true
}

// holidayFollow are the closed-class words that may follow a holiday used
// as a time reference ("at Christmas with my family", "Christmas was fun").
var holidayFollow = set(`and or but with at in on for to of from this last next was is were will would be been
	i we you he she they it my our your his her their the a an me us him them so too as when while after before
	since until till eve day morning night evening weekend week already yet again together though tho comes
	came went has had here there`)

// holidayDate returns the month and day of holiday key in year y.
func holidayDate(key string, y int) (int, int) {
	switch key {
	case "christmas":
		return 12, 25
	case "christmaseve":
		return 12, 24
	case "newyear":
		return 1, 1
	case "newyeareve":
		return 12, 31
	case "halloween":
		return 10, 31
	case "valentine":
		return 2, 14
	case "independence":
		return 7, 4
	case "thanksgiving": // the fourth Thursday of November
		return 11, nthWeekday(y, 11, time.Thursday, 4)
	case "mother": // the second Sunday of May (US)
		return 5, nthWeekday(y, 5, time.Sunday, 2)
	case "father": // the third Sunday of June
		return 6, nthWeekday(y, 6, time.Sunday, 3)
	case "easter":
		return easter(y)
	}
	return 0, 0
}

// movableHoliday reports whether the holiday's date depends on the year.
func movableHoliday(key string) bool {
	return key == "thanksgiving" || key == "mother" || key == "father" || key == "easter"
}

func nthWeekday(y, m int, wd time.Weekday, n int) int {
	d := time.Date(y, time.Month(m), 1, 0, 0, 0, 0, time.UTC)
	off := (int(wd) - int(d.Weekday()) + 7) % 7
	return 1 + off + 7*(n-1)
}

// easter returns the month and day of (Gregorian) Easter Sunday in year y
// (the anonymous Gregorian algorithm).
func easter(y int) (int, int) {
	a, b, c := y%19, y/100, y%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	month := (h + l - 7*m + 114) / 31
	day := (h+l-7*m+114)%31 + 1
	return month, day
}

// resolveHoliday returns the value and phrase of a holiday mention.
func resolveHoliday(e expr, r time.Time, hasRef bool) (string, string) {
	if e.rel {
		if !hasRef {
			return "", ""
		}
		y := r.Year()
		m, d := holidayDate(e.hol, y)
		switch {
		case e.dir < 0 && !day(dt{y, m, d}).Before(r):
			y--
		case e.dir > 0 && !day(dt{y, m, d}).After(r):
			y++
		}
		m, d = holidayDate(e.hol, y)
		a := dt{y, m, d}
		return dtValue(a), dtPhrase(a)
	}
	y := e.a.y
	if y == 0 {
		if !hasRef {
			if movableHoliday(e.hol) {
				return "", ""
			}
			m, d := holidayDate(e.hol, 2000)
			return dtValue(dt{0, m, d}), ""
		}
		m, d := holidayDate(e.hol, r.Year())
		y = fillDate(dt{0, m, d}, r, true, e.tense).y
	}
	m, d := holidayDate(e.hol, y)
	a := dt{y, m, d}
	return dtValue(a), dtPhrase(a)
}
