package mention

import "strings"

// entities finds capitalised name sequences that are not sentence-initial
// common words, interjections, pronouns, calendar words or descriptors.
func entities(text string, toks []tok, speakers []string) []Mention {
	var spk map[string]bool
	if len(speakers) > 0 {
		spk = make(map[string]bool, 2*len(speakers))
		for _, s := range speakers {
			for _, f := range strings.Fields(s) {
				spk[lower(f)] = true
			}
		}
	}
	var out []Mention
	var mid midCaps
	for i := 0; i < len(toks); i++ {
		if !nameTok(toks, i) {
			continue
		}
		if n, _ := holidayLen(toks, i); n > 0 {
			i += n - 1 // holidays are dates, not entities
			continue
		}
		// extend over further capitalised tokens and inner connectors
		j := i + 1
		for j < len(toks) {
			if n, _ := holidayLen(toks, j); n > 0 {
				break
			}
			if toks[j].space && nameTok(toks, j) && !toks[j].sent {
				j++
				continue
			}
			// "Lord of the Rings", "Barnes & Noble", "Coca-Cola"
			if connectors[toks[j].low] && j+1 < len(toks) && toks[j].space && !toks[j].sent {
				k := j + 1
				if toks[j].low == "of" && k < len(toks) && toks[k].low == "the" {
					k++
				}
				if k < len(toks) && nameTok(toks, k) && toks[k].space {
					j = k + 1
					continue
				}
			}
			if toks[j].low == "-" && !toks[j].space && j+1 < len(toks) && !toks[j+1].space && nameTok(toks, j+1) {
				j += 2
				continue
			}
			break
		}
		// a title in quotes is kept whole, even at the start of a
		// sentence ("Finding Home" is …)
		if quoted(toks, i, j) {
			out = appendEntity(out, text, toks, i, j)
			i = j - 1
			continue
		}
		// drop leading words that are not part of a name
		s := i
		for s < j && (stopCaps[toks[s].low] || connectors[toks[s].low] || toks[s].cls == tPunct) {
			s++
		}
		for s < j && toks[s].sent && s+1 == j && !spk[toks[s].low] && !mid.has(toks, toks[s].low) {
			s++ // a lone sentence-initial capitalised word is not trusted
		}
		for s < j && toks[s].sent && s+1 < j && commonStart[toks[s].low] {
			s++
		}
		e := j
		for e > s && (toks[e-1].cls == tPunct || connectors[toks[e-1].low] || stopCaps[toks[e-1].low]) {
			e--
		}
		for s < e && calendarWord(toks[s].low) {
			s++
		}
		for e > s && calendarWord(toks[e-1].low) {
			e--
		}
		if s+1 == e && commonStart[toks[s].low] {
			s = e // a lone common word capitalised mid-sentence ("It", "Even")
		}
		if s < e && phraseAt(toks, s, e) {
			s = e // "Bon Voyage", "Mazel Tov"
		}
		if s < e {
			out = appendEntity(out, text, toks, s, e)
		}
		i = j - 1
	}
	return out
}

// appendEntity appends the entity of tokens [s, e), without a trailing
// possessive ("Caroline's" -> "Caroline").
func appendEntity(out []Mention, text string, toks []tok, s, e int) []Mention {
	st, en := toks[s].s, toks[e-1].e
	w := text[st:en]
	if n := len(w); n > 2 && (w[n-2:] == "'s" || strings.HasSuffix(w, "’s")) {
		en -= len("'s")
		if strings.HasSuffix(w, "’s") {
			en = toks[e-1].e - len("’s")
		}
		w = text[st:en]
	}
	return append(out, Mention{Kind: Entity, Text: w, Start: st, End: en})
}

// quoted reports whether the name tokens [i, j) are exactly the content of
// a pair of quotes, of two words or more or of one that is not a common
// word: a title ("Finding Home", "Inception").
func quoted(toks []tok, i, j int) bool {
	if i == 0 || j >= len(toks) || toks[i].space || toks[j].space || toks[j-1].cls == tPunct {
		return false
	}
	o, c := toks[i-1].low, toks[j].low
	if !(o == "\"" || o == "“") || !(c == "\"" || c == "”") {
		return false
	}
	if j-i == 1 && (commonStart[toks[i].low] || stopCaps[toks[i].low]) {
		return false
	}
	return !phraseAt(toks, i, j)
}

// phraseAt reports whether tokens [s, e) are a capitalised foreign or set
// phrase that is not a name.
func phraseAt(toks []tok, s, e int) bool {
	if e-s < 2 {
		return false
	}
	for _, ph := range notNamePhrases {
		if len(ph) != e-s {
			continue
		}
		k := 0
		for k < len(ph) && toks[s+k].low == ph[k] {
			k++
		}
		if k == len(ph) {
			return true
		}
	}
	return false
}

// notNamePhrases are multi-word interjections and set phrases, mostly from
// other languages, whose words would each look like a name.
var notNamePhrases = [][]string{{"bon", "voyage"}, {"bon", "appetit"}, {"bon", "appétit"}, {"mazel", "tov"},
	{"hasta", "la", "vista"}, {"feliz", "navidad"}, {"buen", "camino"}, {"joyeux", "noël"}, {"au", "revoir"},
	{"carpe", "diem"}, {"hakuna", "matata"}, {"buon", "appetito"}, {"pura", "vida"},
	{"bon", "courage"}, {"la", "dolce", "vita"}, {"dolce", "vita"}, {"c'est", "la", "vie"}, {"bonne", "chance"}}

// nameTok reports whether token i can be part of a name.
func nameTok(toks []tok, i int) bool {
	t := toks[i]
	if t.cls != tWord || !t.cap {
		return false
	}
	l := t.low
	if l == "i" || strings.HasPrefix(l, "i'") || strings.HasPrefix(l, "i’") {
		return false
	}
	if interjections[l] || descriptors[l] {
		return false
	}
	if chatAcronyms[l] || t.upper && commonStart[l] {
		return false
	}
	if len(l) == 1 {
		return false
	}
	if _, ok := weekdayAbbr[l]; ok {
		return false
	}
	return true
}

// midCaps is the set of words that appear capitalised, not at the start
// of a sentence, in a text; it is built on first use.
type midCaps struct {
	built bool
	words map[string]bool
}

func (m *midCaps) has(toks []tok, l string) bool {
	if !m.built {
		m.built = true
		for _, t := range toks {
			if t.cap && !t.sent && t.cls == tWord {
				if m.words == nil {
					m.words = map[string]bool{}
				}
				m.words[t.low] = true
			}
		}
	}
	return m.words[l]
}

func calendarWord(l string) bool {
	if _, ok := months[l]; ok {
		return true
	}
	if _, ok := weekdays[l]; ok {
		return true
	}
	if _, ok := weekdayPlural[l]; ok {
		return true
	}
	return false
}

var connectors = map[string]bool{"of": true, "the": true, "&": true, "de": true}

// interjections and chat words that are capitalised but never names.
var interjections = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`wow thanks thank thx ty hey hi hello hiya yo omg oh ooh ohh ok okay yeah yea yes yep yup no nope nah
		yay woohoo woo haha hahaha lol lmao aww awww aw ah ahh um umm hmm hmmm sure cool great nice congrats congratulations
		sorry please bye goodbye cheers amazing awesome totally absolutely definitely exactly indeed wait well anyway btw
		gosh geez jeez dang damn darn whoa whoah alright agreed right true hooray bravo oops ugh phew mom dad mum mommy daddy
		grandma grandpa granny nana papa auntie uncle aunt sis bro dude buddy pal babe honey sweetie god heaven internet woah wowza yikes
		last next
		yesterday today tomorrow tonight lgbtq lgbt lgbtqia trans
		ciao voila voilà gracias merci ole olé hola adios adiós namaste salud bravissimo danke prost sayonara
		arigato aloha kudos tada hurrah hurray huzzah bonjour bonsoir salut cheerio ahoy touché touche
		bueno merry amen hallelujah shalom skål skol`) {
		interjections[w] = true
	}
	for _, w := range strings.Fields(`the a an my your his her our their its this that these those it it's its we we're we've
		you you're you've he he's she she's they they're there there's here what what's when where who why how which so and but
		or if as at in on for to of with by from up about just also really very too then now still yet maybe perhaps even
		all any some every each no not never always sometimes often usually hope glad good happy love like let let's can could
		would should will must might may did do does don't didn't doesn't is are was were be been being have has had having
		speaking talking thinking looking going getting being making taking seeing wishing sending hoping keep stay take make
		go get see try check look remember thanks sounds sound seems looks feels that's isn't aren't wasn't weren't can't won't
		one two three four five once after before since until while during because though although lately recently anyway
		besides plus yes no oh hey hi wow well here even just always but bring hang see sleep home game dance
		world city turn perfect engineering chef middle stone shadow shares pub web chess sushi elf dragons finals
		fireworks zen lab trilogy activists connected bet anytime adding exploring embracing finding doing intense
		last next first new old big little best great good nice fun free true real happy`) {
		commonStart[w] = true
		stopCaps[w] = stopCaps[w] || interjections[w]
	}
	for _, w := range []string{"the", "a", "an", "my", "your", "his", "her", "our", "their", "this", "that", "these", "those"} {
		stopCaps[w] = true
	}
}

// commonStart are words that start sentences capitalised; a name never
// begins with one.
var commonStart = map[string]bool{}

// stopCaps are stripped from the edges of a candidate name.
var stopCaps = map[string]bool{}

// descriptors are capitalised adjectives of nationality, religion or
// language (not entities of the kinds counted here).
var descriptors = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`american canadian british english french german italian spanish mexican chinese japanese
		korean indian african european asian latin latino latina brazilian australian irish scottish russian greek
		christian muslim jewish catholic buddhist hindu black white native western eastern northern southern`) {
		descriptors[w] = true
	}
}

var chatAcronyms = map[string]bool{"omg": true, "lol": true, "lmao": true, "btw": true, "tbh": true, "idk": true,
	"diy": true, "ok": true, "fyi": true, "asap": true, "imo": true, "imho": true, "rofl": true, "ty": true, "thx": true,
	"lgbtq": true, "lgbt": true, "xoxo": true, "brb": true, "ily": true, "ngl": true,
	// generic capitalised nouns, not names
	"tv": true, "pc": true, "rpg": true, "rpgs": true, "vr": true, "gps": true, "diys": true}

func init() {
	// generic acronyms of chat: relations, hospital wards, game genres,
	// conditions, roles; names of things, not of one thing
	for _, w := range strings.Fields(`gf bf bff bffs so er icu ent emt mri cpr ptsd adhd ocd bbq moba mobas mmo mmos
		mmorpg mmorpgs fps rts tvs pcs ceo ceos dj djs ai atm suv suvs ufo hr dm dms pm am pto phd mba`) {
		chatAcronyms[w] = true
	}
}
