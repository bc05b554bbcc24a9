package embed

// This file is a compact implementation of M.F. Porter's 1980 suffix
// stripping algorithm ("An algorithm for suffix stripping", Program 14(3)),
// with the two departures of Porter's own reference implementation: step 2
// maps "bli" (not "abli") to "ble" and adds "logi" -> "log".

// stem returns the Porter stem of a lowercase word. Words of two letters or
// fewer and words holding anything but ASCII a–z are returned unchanged.
func stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	p := porter{b: []byte(w)}
	p.step1ab()
	p.step1c()
	p.step2()
	p.step3()
	p.step4()
	p.step5()
	return string(p.b)
}

type porter struct{ b []byte }

// cons reports whether b[i] is a consonant.
func (p *porter) cons(i int) bool {
	switch p.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !p.cons(i-1)
	}
	return true
}

// measure returns m, the number of VC sequences in b[:n].
func (p *porter) measure(n int) int {
	m, i := 0, 0
	for i < n && p.cons(i) {
		i++
	}
	for i < n {
		for i < n && !p.cons(i) {
			i++
		}
		if i >= n {
			break
		}
		for i < n && p.cons(i) {
			i++
		}
		m++
	}
	return m
}

// hasVowel reports whether b[:n] contains a vowel.
func (p *porter) hasVowel(n int) bool {
	for i := 0; i < n; i++ {
		if !p.cons(i) {
			return true
		}
	}
	return false
}

// doubleCons reports whether b[:n] ends in a double consonant.
func (p *porter) doubleCons(n int) bool {
	return n >= 2 && p.b[n-1] == p.b[n-2] && p.cons(n-1)
}

// cvc reports whether b[:n] ends consonant-vowel-consonant with the last
// consonant not w, x or y.
func (p *porter) cvc(n int) bool {
	if n < 3 || !p.cons(n-1) || p.cons(n-2) || !p.cons(n-3) {
		return false
	}
	c := p.b[n-1]
	return c != 'w' && c != 'x' && c != 'y'
}

func (p *porter) ends(s string) bool {
	n := len(p.b)
	return n >= len(s) && string(p.b[n-len(s):]) == s
}

// stemLen returns the length of b without suffix s (which it must end in).
func (p *porter) stemLen(s string) int { return len(p.b) - len(s) }

func (p *porter) setTo(n int, repl string) { p.b = append(p.b[:n], repl...) }

func (p *porter) step1ab() {
	switch {
	case p.ends("sses"):
		p.setTo(p.stemLen("sses"), "ss")
	case p.ends("ies"):
		p.setTo(p.stemLen("ies"), "i")
	case p.ends("ss"):
	case p.ends("s"):
		p.b = p.b[:len(p.b)-1]
	}
	if p.ends("eed") {
		if n := p.stemLen("eed"); p.measure(n) > 0 {
			p.setTo(n, "ee")
		}
		return
	}
	var n int
	switch {
	case p.ends("ed") && p.hasVowel(p.stemLen("ed")):
		n = p.stemLen("ed")
	case p.ends("ing") && p.hasVowel(p.stemLen("ing")):
		n = p.stemLen("ing")
	default:
		return
	}
	p.b = p.b[:n]
	switch {
	case p.ends("at"), p.ends("bl"), p.ends("iz"):
		p.b = append(p.b, 'e')
	case p.doubleCons(n):
		if c := p.b[n-1]; c != 'l' && c != 's' && c != 'z' {
			p.b = p.b[:n-1]
		}
	case p.measure(n) == 1 && p.cvc(n):
		p.b = append(p.b, 'e')
	}
}

func (p *porter) step1c() {
	if p.ends("y") && p.hasVowel(p.stemLen("y")) {
		p.b[len(p.b)-1] = 'i'
	}
}

// replace applies the first rule whose suffix b ends in, when the measure
// of the remaining stem exceeds min. Only the first matching suffix is
// tried, as in Porter's algorithm.
func (p *porter) replace(rules [][2]string, min int) {
	for _, r := range rules {
		if p.ends(r[0]) {
			if n := p.stemLen(r[0]); p.measure(n) > min {
				p.setTo(n, r[1])
			}
			return
		}
	}
}

var step2Rules = [][2]string{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"},
	{"izer", "ize"}, {"bli", "ble"}, {"alli", "al"}, {"entli", "ent"},
	{"eli", "e"}, {"ousli", "ous"}, {"ization", "ize"}, {"ation", "ate"},
	{"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"},
	{"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
	{"logi", "log"},
}

var step3Rules = [][2]string{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"},
	{"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

func (p *porter) step2() { p.replace(step2Rules, 0) }
func (p *porter) step3() { p.replace(step3Rules, 0) }

var step4Suffixes = []string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment",
	"ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
}

func (p *porter) step4() {
	// Longest match first: "ement" before "ment" before "ent".
	best := ""
	for _, s := range step4Suffixes {
		if len(s) > len(best) && p.ends(s) {
			best = s
		}
	}
	if best == "" {
		return
	}
	n := p.stemLen(best)
	if best == "ion" && (n == 0 || (p.b[n-1] != 's' && p.b[n-1] != 't')) {
		return
	}
	if p.measure(n) > 1 {
		p.b = p.b[:n]
	}
}

func (p *porter) step5() {
	if p.ends("e") {
		n := len(p.b) - 1
		if m := p.measure(n); m > 1 || (m == 1 && !p.cvc(n)) {
			p.b = p.b[:n]
		}
	}
	if n := len(p.b); p.measure(n) > 1 && p.doubleCons(n) && p.b[n-1] == 'l' {
		p.b = p.b[:n-1]
	}
}
