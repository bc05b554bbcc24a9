// Relative expressions (yesterday, last/next, ago, weekends, parts of day) and anchored dates.

package mention

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
