package mention

import "strings"

// events returns the event mentions of text: main verbs (lemmatised by
// lexicon) that are not light verbs, auxiliaries or stance verbs, and event
// nouns. See the package documentation for the exact definition.
func events(text string, toks []tok) []Mention {
	var out []Mention
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.cls != tWord {
			continue
		}
		l := t.low
		if lemma, ok := eventNouns[l]; ok {
			if ambiguousNouns[l] {
				if !nounContext(toks, i) {
					if verbContext(toks, i) {
						out = append(out, Mention{Kind: Event, Text: text[t.s:t.e], Start: t.s, End: t.e, Value: lemma})
					}
					continue
				}
			}
			out = append(out, Mention{Kind: Event, Text: text[t.s:t.e], Start: t.s, End: t.e, Value: lemma})
			continue
		}
		lemma, form := verbLemma(l)
		if lemma == "" || excludedVerbs[lemma] {
			continue
		}
		if lemma == "go" && i+1 < len(toks) && (l == "going" || l == "goin") && toks[i+1].low == "to" &&
			i+2 < len(toks) && isBaseVerb(toks[i+2].low) {
			continue // "going to VERB": auxiliary
		}
		switch form {
		case formPast, formIng, formEd:
			if form == formIng && nounContext(toks, i) {
				continue // "the painting", "my cooking"
			}
			if form == formEd && i > 0 && adjContext[toks[i-1].low] {
				continue // "so excited", "was tired"
			}
		default: // base or -s form: needs a verbal context
			if !verbContext(toks, i) {
				continue
			}
		}
		out = append(out, Mention{Kind: Event, Text: text[t.s:t.e], Start: t.s, End: t.e, Value: lemma})
	}
	return out
}

// verb forms
const (
	formBase = iota + 1
	formS
	formEd
	formIng
	formPast // irregular past or participle
)

// verbLemma returns the lemma of a known verb form and the form, or "".
func verbLemma(l string) (string, int) {
	if b, ok := irregular[l]; ok {
		return b, formPast
	}
	if verbs[l] {
		return l, formBase
	}
	n := len(l)
	if n < 3 {
		return "", 0
	}
	try := func(stem string) bool { return verbs[stem] }
	switch {
	case strings.HasSuffix(l, "ing") && n > 4:
		s := l[:n-3]
		if try(s) {
			return s, formIng
		}
		if try(s + "e") {
			return s + "e", formIng
		}
		if len(s) > 2 && s[len(s)-1] == s[len(s)-2] && try(s[:len(s)-1]) {
			return s[:len(s)-1], formIng
		}
		if strings.HasSuffix(s, "y") && try(s[:len(s)-1]+"ie") {
			return s[:len(s)-1] + "ie", formIng
		}
	case strings.HasSuffix(l, "ed") && n > 3:
		s := l[:n-2]
		if try(s) {
			return s, formEd
		}
		if try(s + "e") {
			return s + "e", formEd
		}
		if try(l[:n-1]) {
			return l[:n-1], formEd
		}
		if len(s) > 2 && s[len(s)-1] == s[len(s)-2] && try(s[:len(s)-1]) {
			return s[:len(s)-1], formEd
		}
		if strings.HasSuffix(s, "i") && try(s[:len(s)-1]+"y") {
			return s[:len(s)-1] + "y", formEd
		}
	case strings.HasSuffix(l, "s") && n > 3:
		if strings.HasSuffix(l, "ies") && try(l[:n-3]+"y") {
			return l[:n-3] + "y", formS
		}
		if strings.HasSuffix(l, "es") && try(l[:n-2]) {
			return l[:n-2], formS
		}
		if try(l[:n-1]) {
			return l[:n-1], formS
		}
	}
	return "", 0
}

func isBaseVerb(l string) bool {
	return verbs[l] || l == "be" || l == "have" || l == "do" || l == "get" || l == "go"
}

// verbContext reports whether the base/-s form at i is used as a verb:
// after a subject pronoun, a modal or auxiliary, "to", or an adverb that
// follows one.
func verbContext(toks []tok, i int) bool {
	k := i - 1
	for k >= 0 && preVerbAdverbs[toks[k].low] {
		k--
	}
	if k < 0 {
		return false
	}
	p := toks[k].low
	if verbCues[p] {
		return true
	}
	if strings.HasSuffix(p, "'ll") || strings.HasSuffix(p, "'d") || strings.HasSuffix(p, "n't") {
		return true
	}
	if p == "and" || p == "or" { // "went out and danced" is handled by forms; "I sing and dance"
		for m := k - 1; m >= 0 && m >= k-3; m-- {
			if subjects[toks[m].low] {
				return true
			}
		}
	}
	return false
}

// nounContext reports whether token i follows a determiner or possessive.
func nounContext(toks []tok, i int) bool {
	if i == 0 {
		return false
	}
	p := toks[i-1].low
	if determiners[p] || p == "'s" {
		return true
	}
	// "a charity race": a determiner and one modifier before the noun
	return i >= 2 && toks[i-1].cls == tWord && !verbCues[p] && determiners[toks[i-2].low]
}

var (
	verbs, subjects, verbCues, preVerbAdverbs, determiners, excludedVerbs, adjContext = set(``), set(``), set(``), set(``), set(``), set(``), set(``)
	irregular                                                                         = map[string]string{}
	eventNouns                                                                        = map[string]string{}
)

// ambiguousNouns are event nouns that are also verbs; as nouns they need a
// determiner before them, otherwise they count only in a verbal context.
var ambiguousNouns = set(`run walk ride visit move talk date show hike race tour launch interview`)

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func init() {
	verbs = set(`accept achieve act add adopt advise agree aim allow announce apply appreciate arrange arrive ask attend
		bake believe belong bike blow boost borrow break bring build burn buy call camp care carry catch celebrate change chat
		check cheer choose clean climb close coach collaborate collect come compete complete connect consider contribute cook
		count cover craft create cross cry cut dance date deal decide decorate deliver design develop die dine discover discuss
		donate draw dream dress drink drive drop earn eat educate embrace encourage end enjoy enter enroll escape explore
		express face fail fall feed fight figure fill film find finish fish fit fix fly focus follow forget forgive form found
		gain garden give grab graduate grow guide hang happen hate head heal hear help hike hire hit hold host hug hunt hurt
		imagine improve include inspire install interview introduce invite join jump keep kick kill knit land laugh launch
		lead learn leave lend lift listen live lose make manage marry meet mentor miss move need notice offer open organize
		organise own paint pass pay perform pick plan plant play post practice practise prepare present print produce promote
		protect prove publish pull push put quit race raise reach read realize realise receive recommend record recover reflect
		relax release remember rent repair research rest return ride rise run sail save say score search sell send serve set
		share shop shoot show sign sing sit skate ski sleep snap solve speak spend stand start stay step stop study submit
		succeed suggest support surf surprise swim take talk teach tell test thank throw touch tour train transform travel treat
		try turn understand upload use visit volunteer vote wake walk want watch wear welcome win wish work worry write
		audition bond brainstorm capture chase compose dig discover experiment fundraise hang hike interview jog kayak lose
		marry network paddle pitch plant propose rehearse relocate renovate retire sculpt shoot sketch snowboard tattoo
		adopt advocate accomplish attend camp canoe bike blog code game stream train mentor mend donate renew redo`)
	for k, v := range map[string]string{"went": "go", "gone": "go", "made": "make", "took": "take", "taken": "take",
		"saw": "see", "seen": "see", "came": "come", "met": "meet", "ran": "run", "gave": "give", "given": "give",
		"found": "find", "felt": "feel", "told": "tell", "said": "say", "left": "leave", "bought": "buy", "wrote": "write",
		"written": "write", "won": "win", "began": "begin", "begun": "begin", "brought": "bring", "built": "build",
		"caught": "catch", "chose": "choose", "chosen": "choose", "drew": "draw", "drawn": "draw", "drove": "drive",
		"driven": "drive", "ate": "eat", "eaten": "eat", "fell": "fall", "fallen": "fall", "fought": "fight", "flew": "fly",
		"flown": "fly", "forgot": "forget", "forgotten": "forget", "grew": "grow", "grown": "grow", "heard": "hear",
		"held": "hold", "hurt": "hurt", "kept": "keep", "knew": "know", "known": "know", "led": "lead", "lent": "lend",
		"lost": "lose", "paid": "pay", "put": "put", "quit": "quit", "read": "read", "rode": "ride", "ridden": "ride",
		"rose": "rise", "sang": "sing", "sung": "sing", "sat": "sit", "slept": "sleep", "sold": "sell", "sent": "send",
		"spent": "spend", "spoke": "speak", "spoken": "speak", "stood": "stand", "swam": "swim", "taught": "teach",
		"thought": "think", "threw": "throw", "thrown": "throw", "understood": "understand", "woke": "wake", "wore": "wear",
		"worn": "wear", "shot": "shoot", "shown": "show", "set": "set", "cut": "cut", "hit": "hit", "dug": "dig",
		"broke": "break", "broken": "break", "became": "become", "become": "become", "blew": "blow", "hung": "hang",
		"was": "be", "were": "be", "been": "be", "is": "be", "are": "be", "am": "be", "had": "have", "has": "have",
		"did": "do", "done": "do", "does": "do", "got": "get", "gotten": "get"} {
		irregular[k] = v
	}
	verbs["become"], verbs["begin"], verbs["see"], verbs["think"], verbs["know"], verbs["feel"], verbs["go"] = true, true, true, true, true, true, true
	excludedVerbs = set(`be have do get can could will would shall should may might must need want like love hope wish think
		know guess mean feel seem sound look bet suppose believe wonder say tell let thank appreciate miss care`)
	subjects = set(`i you we they he she it who people everyone someone`)
	verbCues = set(`i you we they he she who to will would can could should might must shall did do does don't didn't doesn't
		can't won't wouldn't couldn't shouldn't let's gonna wanna gotta i'll we'll you'll they'll he'll she'll i'd we'd
		you'd they'd usually often always never sometimes`)
	preVerbAdverbs = set(`just really also always never often usually finally actually still even already recently
		sometimes totally definitely probably truly`)
	determiners = set(`the a an my your his her our their its this that these those some any every each no another
		first last next great good nice big little new favorite favourite fun`)
	adjContext = set(`so very really too quite pretty am is are was were be been feel feeling felt get got getting super
		more most less`)
	for k, v := range map[string]string{"trip": "trip", "trips": "trip", "party": "party", "parties": "party",
		"race": "race", "concert": "concert", "concerts": "concert", "wedding": "wedding", "meeting": "meeting",
		"conference": "conference", "festival": "festival", "parade": "parade", "workshop": "workshop",
		"workshops": "workshop", "tournament": "tournament", "competition": "competition", "performance": "performance",
		"hike": "hike", "hikes": "hike", "vacation": "vacation", "holiday": "holiday", "birthday": "birthday",
		"graduation": "graduation", "interview": "interview", "protest": "protest", "fundraiser": "fundraiser",
		"event": "event", "events": "event", "ceremony": "ceremony", "funeral": "funeral", "accident": "accident",
		"surgery": "surgery", "visit": "visit", "tour": "tour", "exhibition": "exhibition", "exhibit": "exhibit",
		"speech": "speech", "lesson": "lesson", "lessons": "lesson", "class": "class", "classes": "class",
		"course": "course", "dinner": "dinner", "lunch": "lunch", "picnic": "picnic", "roadtrip": "roadtrip",
		"marathon": "marathon", "rehearsal": "rehearsal", "audition": "audition", "launch": "launch",
		"adoption": "adoption", "celebration": "celebration", "reunion": "reunion", "retreat": "retreat",
		"seminar": "seminar", "convention": "convention", "gig": "gig", "recital": "recital", "fair": "fair",
		"injury": "injury", "breakup": "breakup", "game": "game", "match": "match", "show": "show", "run": "run",
		"walk": "walk", "ride": "ride", "move": "move", "talk": "talk", "date": "date", "camping": "camping",
		"hiking": "hiking", "meetup": "meetup", "session": "session", "sessions": "session", "cruise": "cruise",
		"tryout": "tryout", "tryouts": "tryout", "championship": "championship", "hackathon": "hackathon",
		"internship": "internship", "promotion": "promotion", "flood": "flood", "storm": "storm", "outage": "outage"} {
		eventNouns[k] = v
	}
}
