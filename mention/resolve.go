package mention

import (
	"strconv"
	"strings"
	"time"
)

// resolve returns the TIMEX3 value and canonical phrase of e against ref.
// Values that need a reference are empty when ref is zero.
func resolve(e expr, ref time.Time) (string, string) {
	hasRef := !ref.IsZero()
	r := time.Date(ref.Year(), ref.Month(), ref.Day(), 0, 0, 0, 0, time.UTC)
	switch e.op {
	case opFixed:
		return e.val, ""
	case opDate:
		a := fillDate(e.a, r, hasRef, e.tense)
		if e.wd > 0 && e.a.y == 0 && a.y != 0 && e.b.m == 0 {
			a = onWeekday(a, e.wd-1)
		}
		if e.b.m != 0 {
			b := e.b
			if b.y == 0 {
				b.y = a.y
			}
			return dtValue(a) + "/" + dtValue(b), dtPhrase(a) + " to " + dtPhrase(b)
		}
		return dtValue(a), dtPhrase(a)
	case opSeason:
		y := "XXXX"
		if e.a.y != 0 {
			y = strconv.Itoa(e.a.y)
		}
		return y + "-" + e.season, seasonNames[e.season] + " " + y
	case opHoliday:
		return resolveHoliday(e, r, hasRef)
	}
	// anchored to a date in the text
	if e.op == opAnchor || e.op == opPart {
		a := fillDate(e.a, r, hasRef, e.tense)
		if a.y == 0 {
			return "", ""
		}
		if e.op == opPart {
			return partOf(e, a)
		}
		switch {
		case e.unit == uYear: // "three years before 2023"
			if e.n < 0 {
				return "", "a few years" + map[int]string{-1: " before ", 1: " after "}[e.dir] + strconv.Itoa(a.y)
			}
			y := strconv.Itoa(a.y + e.dir*e.n)
			return y, y
		case e.unit == uMonth:
			if e.n < 0 {
				return "", ""
			}
			m := dt{a.y, a.m, 0}.addMonths(e.dir * e.n)
			return dtValue(m), dtPhrase(m)
		case a.d == 0: // "a few days before November 2023": the month before
			return dtValue(dt{a.y, a.m, 0}.addMonths(-1)), ""
		}
		return around(e, day(a), e.dir)
	}
	if !hasRef {
		return "", ""
	}
	switch e.op {
	case opDeictic:
		d := r.AddDate(0, 0, e.n)
		if e.tod != "" {
			return dayValue(d) + "T" + e.tod, todPhrase(e.tod) + dayPhrase(d)
		}
		return dayValue(d), dayPhrase(d)
	case opClock:
		return dayValue(r) + "T" + e.tod, todPhrase(e.tod) + dayPhrase(r)
	case opWeekday:
		dir := e.dir
		if dir == 2 {
			dir = e.tense
			if dir == 0 {
				return "", ""
			}
		}
		d := r.AddDate(0, 0, dirOr(dir))
		if dir == 0 {
			d = r
		}
		for int(d.Weekday()) != e.wd {
			d = d.AddDate(0, 0, dirOr(dir))
		}
		if e.tod != "" { // "Friday night", "last Sunday morning"
			return dayValue(d) + "T" + e.tod, todPhrase(e.tod) + dayPhrase(d)
		}
		if dir == 0 {
			return dayValue(d), dayPhrase(d)
		}
		return around(expr{wd: e.wd}, r, dir)
	case opYearRel:
		a := dt{r.Year() + e.dir, e.a.m, e.a.d}
		return dtValue(a), dtPhrase(a)
	case opUnit:
		return relUnit(e, r)
	case opAgo:
		if e.dir > 0 {
			return around(expr{n: e.n, unit: e.unit}, r, 1)
		}
		return around(expr{n: e.n, unit: e.unit}, r, -1)
	}
	return "", ""
}

// around resolves "<wd|N units> before/after/of" the day a.
func around(e expr, a time.Time, dir int) (string, string) {
	n := e.n
	if n == 0 {
		n = 1
	}
	rel := map[int]string{-1: " before ", 1: " after ", 0: " of "}[dir]
	switch e.unit {
	case 0: // weekday
		d := a.AddDate(0, 0, dir)
		if dir == 0 {
			d = a
		}
		for int(d.Weekday()) != e.wd {
			d = d.AddDate(0, 0, dirOr(dir))
		}
		return dayValue(d), "the " + weekdayNames[e.wd] + rel + dayPhrase(a)
	case uDay, uNight, uHour, uMinute, uSecond:
		if e.unit != uDay && e.unit != uNight {
			n = 0
		}
		if n < 0 { // a few days
			lo, hi := a.AddDate(0, 0, -4), a.AddDate(0, 0, -2)
			if dir > 0 {
				lo, hi = a.AddDate(0, 0, 2), a.AddDate(0, 0, 4)
			}
			return dayValue(lo) + "/" + dayValue(hi), "a few days" + rel + dayPhrase(a)
		}
		if dir == 0 {
			return dayValue(a), dayPhrase(a)
		}
		d := a.AddDate(0, 0, dir*n)
		return dayValue(d), dayPhrase(d)
	case uWeek:
		if n < 0 {
			return "", "a few weeks" + rel + dayPhrase(a)
		}
		d := a.AddDate(0, 0, 7*n*dir)
		return weekValue(d), countPhrase(n, "week", dir) + rel + dayPhrase(a)
	case uWeekend:
		if n < 0 {
			return "", "a few weekends" + rel + dayPhrase(a)
		}
		var sat time.Time
		switch dir {
		case -1: // latest weekend whose Sunday is before a
			sat = a.AddDate(0, 0, -2)
			for sat.Weekday() != time.Saturday {
				sat = sat.AddDate(0, 0, -1)
			}
			sat = sat.AddDate(0, 0, -7*(n-1))
		case 1:
			sat = a.AddDate(0, 0, 1)
			for sat.Weekday() != time.Saturday {
				sat = sat.AddDate(0, 0, 1)
			}
			sat = sat.AddDate(0, 0, 7*(n-1))
		default: // the weekend of a's ISO week
			off := (int(a.Weekday()) + 6) % 7 // days since Monday
			sat = a.AddDate(0, 0, 5-off)
		}
		return dayValue(sat) + "/" + dayValue(sat.AddDate(0, 0, 1)), countPhrase(n, "weekend", dir) + rel + dayPhrase(a)
	case uMonth:
		if n < 0 {
			return "", "a few months" + rel + dayPhrase(a)
		}
		m := dt{a.Year(), int(a.Month()), 0}.addMonths(dir * n)
		return dtValue(m), dtPhrase(m)
	case uYear, uDecade:
		if n < 0 {
			return "", "a few years" + rel + strconv.Itoa(a.Year())
		}
		if e.unit == uDecade {
			n *= 10
		}
		y := strconv.Itoa(a.Year() + dir*n)
		return y, y
	}
	return "", ""
}

func dirOr(d int) int {
	if d == 0 {
		return 1
	}
	return d
}

func countPhrase(n int, unit string, dir int) string {
	if n == 1 {
		return "the " + unit
	}
	w := strconv.Itoa(n)
	if n < len(smallNumbers) {
		w = smallNumbers[n]
	}
	return w + " " + unit + "s"
}

var smallNumbers = [...]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

// relUnit resolves last/this/next week, weekend, month, year, season or
// month name against the reference day r.
func relUnit(e expr, r time.Time) (string, string) {
	switch {
	case e.season != "":
		start := map[string]int{"SP": 3, "SU": 6, "FA": 9, "WI": 12}[e.season]
		y, m := r.Year(), int(r.Month())
		cur := y // the season's year in which "this" falls
		if e.season == "WI" && m <= 2 {
			cur = y - 1
		}
		switch e.dir {
		case -1:
			// the latest such season that has ended (or begun) before r
			if e.season == "WI" {
				if m <= 2 || m == 12 {
					cur--
				} else {
					cur = y - 1
				}
			} else if m <= start+2 {
				cur = y - 1
			}
		case 1:
			if e.season == "WI" {
				if m <= 2 || m == 12 {
					cur++
				}
			} else if m >= start {
				cur = y + 1
			}
		}
		ys := strconv.Itoa(cur)
		return ys + "-" + e.season, seasonNames[e.season] + " " + ys
	case e.unit == 0 && e.a.m != 0: // last May, next June
		y := r.Year()
		switch e.dir {
		case -1:
			if e.a.m >= int(r.Month()) {
				y--
			}
		case 1:
			if e.a.m <= int(r.Month()) {
				y++
			}
		}
		d := dt{y, e.a.m, 0}
		return dtValue(d), dtPhrase(d)
	case e.unit == uWeek:
		d := r.AddDate(0, 0, 7*e.dir)
		rel := map[int]string{-1: "the week before ", 0: "the week of ", 1: "the week after "}[e.dir]
		return weekValue(d), rel + dayPhrase(r)
	case e.unit == uWeekend:
		if e.dir == 0 && e.tense < 0 && r.Weekday() != time.Saturday && r.Weekday() != time.Sunday {
			// "we went hiking this weekend", said on a weekday: the weekend just past
			v, _ := around(expr{n: 1, unit: uWeekend}, r, -1)
			return v, "the weekend before " + dayPhrase(r)
		}
		return around(expr{n: 1, unit: uWeekend}, r, e.dir)
	case e.unit == uMonth:
		d := dt{r.Year(), int(r.Month()), 0}.addMonths(e.dir)
		return dtValue(d), dtPhrase(d)
	case e.unit == uYear:
		y := strconv.Itoa(r.Year() + e.dir)
		return y, y
	}
	return "", ""
}

// partOf resolves "the first week of May 2023", "the last weekend of ...".
func partOf(e expr, a dt) (string, string) {
	first := time.Date(a.y, time.Month(a.m), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1)
	ord := map[int]string{1: "first", 2: "second", 3: "third", 4: "fourth", -1: "last"}[e.n]
	if ord == "" {
		return "", ""
	}
	if e.unit == uWeek {
		var lo time.Time
		if e.n > 0 {
			lo = first.AddDate(0, 0, 7*(e.n-1))
		} else {
			lo = last.AddDate(0, 0, -6)
		}
		return dayValue(lo) + "/" + dayValue(lo.AddDate(0, 0, 6)), "the " + ord + " week of " + dtPhrase(a)
	}
	var sat time.Time
	if e.n > 0 {
		sat = first
		for sat.Weekday() != time.Saturday {
			sat = sat.AddDate(0, 0, 1)
		}
		sat = sat.AddDate(0, 0, 7*(e.n-1))
	} else {
		sat = last
		for sat.Weekday() != time.Saturday {
			sat = sat.AddDate(0, 0, -1)
		}
	}
	return dayValue(sat) + "/" + dayValue(sat.AddDate(0, 0, 1)), "the " + ord + " weekend of " + dtPhrase(a)
}

// fillDate gives a year-less date the reference's year. When that puts a
// date mentioned in a past-tense sentence after the reference, the
// previous year is used; when it puts a future-tense mention before the
// reference (by month), the next year.
func fillDate(a dt, r time.Time, hasRef bool, tense int) dt {
	if a.y != 0 || !hasRef || a.m == 0 {
		return a
	}
	a.y = r.Year()
	rm, rd := int(r.Month()), r.Day()
	switch {
	case tense < 0 && (a.m > rm || a.m == rm && a.d > rd):
		a.y--
	case tense > 0 && (a.m < rm || a.m == rm && a.d != 0 && a.d < rd):
		a.y++
	}
	return a
}

// onWeekday returns a (a yearless date given a year by tense) in the
// year before or after instead when only that one falls on weekday wd.
func onWeekday(a dt, wd int) dt {
	if a.d == 0 || int(day(a).Weekday()) == wd {
		return a
	}
	for _, y := range []int{a.y + 1, a.y - 1} {
		if b := (dt{y, a.m, a.d}); int(day(b).Weekday()) == wd {
			return b
		}
	}
	return a
}

func (a dt) addMonths(n int) dt {
	t := time.Date(a.y, time.Month(a.m), 1, 0, 0, 0, 0, time.UTC).AddDate(0, n, 0)
	return dt{t.Year(), int(t.Month()), 0}
}

func day(a dt) time.Time { return time.Date(a.y, time.Month(a.m), a.d, 0, 0, 0, 0, time.UTC) }

func dtValue(a dt) string {
	y := "XXXX"
	if a.y != 0 {
		y = strconv.Itoa(a.y)
	}
	switch {
	case a.m == 0:
		return y
	case a.d == 0:
		return y + "-" + two(a.m)
	}
	return y + "-" + two(a.m) + "-" + two(a.d)
}

func dtPhrase(a dt) string {
	var b strings.Builder
	if a.d != 0 {
		b.WriteString(strconv.Itoa(a.d))
		b.WriteByte(' ')
	}
	if a.m != 0 {
		b.WriteString(monthNames[a.m])
	}
	if a.y != 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(a.y))
	}
	return b.String()
}

func dayValue(t time.Time) string { return t.Format("2006-01-02") }

func dayPhrase(t time.Time) string {
	return strconv.Itoa(t.Day()) + " " + monthNames[t.Month()] + " " + strconv.Itoa(t.Year())
}

func weekValue(t time.Time) string {
	y, w := t.ISOWeek()
	return strconv.Itoa(y) + "-W" + two(w)
}

func todPhrase(tod string) string {
	return map[string]string{"MO": "the morning of ", "AF": "the afternoon of ", "EV": "the evening of ", "NI": "the night of "}[tod]
}

// tense guesses the tense of the sentence around token i from closed-class
// cues: -1 past, +1 future, 0 unknown.
func (p *tparser) tense(i int) int {
	lo := i
	for lo > 0 && !p.t[lo].sent {
		lo--
	}
	if p.tenseOK && p.tenseAt == lo {
		return p.tenseVal
	}
	v := p.sentenceTense(lo)
	// a sentence without tense cues ("Anything fun over the weekend?")
	// takes the tense of the nearest earlier sentence that has one
	for k := lo - 1; v == 0 && k >= 0; k-- {
		if p.t[k].sent {
			v = p.sentenceTense(k)
		}
	}
	p.tenseOK, p.tenseAt, p.tenseVal = true, lo, v
	return v
}

// sentenceTense scans the sentence starting at token lo.
func (p *tparser) sentenceTense(lo int) int {
	past, fut := false, false
	for k := lo; k < len(p.t); k++ {
		if k > lo && p.t[k].sent {
			break
		}
		l := p.t[k].low
		switch l {
		case "will", "gonna", "planning", "plan", "plans", "upcoming", "tomorrow", "next", "soon", "wait":
			fut = true
		case "going":
			if p.is(k+1, "to") {
				fut = true
			}
		case "was", "were", "did", "had", "went", "got", "ago", "yesterday", "last", "made", "took",
			"saw", "came", "met", "ran", "gave", "found", "felt", "told", "said", "left", "bought", "wrote", "won":
			past = true
		default:
			if strings.HasSuffix(l, "'ll") {
				fut = true
			} else if len(l) >= 5 && strings.HasSuffix(l, "ed") && !notPast[l] {
				past = true
			}
		}
	}
	switch {
	case fut:
		return 1
	case past:
		return -1
	}
	return 0
}

var notPast = map[string]bool{"need": true, "indeed": true, "speed": true, "proceed": true, "succeed": true, "exceed": true, "breed": true, "bleed": true, "agreed": false, "interested": true, "excited": true, "tired": true, "scared": true, "dedicated": true, "motivated": true, "inspired": true, "amazed": true, "blessed": true, "thrilled": true, "stressed": true, "relaxed": true, "involved": true, "worried": true, "pleased": true, "focused": true, "determined": true, "talented": true, "based": true, "related": true, "detailed": true}
