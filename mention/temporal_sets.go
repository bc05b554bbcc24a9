// Sets (recurring times: "every Friday", "twice a week") and clock times ("3 pm", "noon").

package mention

import "strconv"

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
