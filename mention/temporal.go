// Temporal tagging: the tparser type, the scanning loop, span assembly and counts.

package mention

import "time"

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
	wd     int // opDate: 1 + the weekday the date is said to fall on, 0 none
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
			if _, ok := p.weekdayName(i); !ok {
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
