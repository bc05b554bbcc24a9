// Durations ("for two weeks", "about a year") and ages ("when I was 10").

package mention

import (
	"strconv"
	"strings"
)

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
