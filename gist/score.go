package gist

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Feature weights of the extractive score. A sentence is informative when
// its score reaches informative.
const (
	informative   = 1.0
	perWord       = 0.08 // up to 30 words: longer sentences carry more facts
	perEntity     = 1.0  // distinct capitalised non-initial word, up to 3
	perNumber     = 1.0  // digits or a number word, up to 3
	firstEvent    = 1.2  // a plan, decision or life-event cue
	moreEvents    = 0.5  // each further one, up to 2
	firstPerson   = 0.4  // the speaker talks about themself
	causal        = 0.5  // because, since, so that, that's why
	smallTalkLead = 2.5  // starts like small talk and is short (≤ 6 words)
	smallTalkLong = 1.0  // starts like small talk but goes on
	laughter      = 0.5  // haha, lol, :)
	question      = 1.5  // ends in "?"
	askedBack     = 1.0  // a question about the other speaker ("you")
	tooShort      = 1.5  // fewer than 5 words
	emotional     = 0.8  // a reaction with no entity or number ("so proud of you")
	secondPerson  = 0.7  // about "you" with no first person
)

var (
	eventWords = setOf(`i'll we'll she'll he'll they'll plan plans planned planning gonna
		decide decided deciding start starts started starting got bought buy buying move moved moving
		join joins joined joining adopt adopted adopting finish finished graduate graduated graduating
		married engaged apply applied applying visit visited visiting went took made learn learned learnt
		learning won lost quit hired promoted launched created wrote painted ran traveled travelled became
		volunteer volunteered volunteering`)
	eventPairs = setOf(`i_will we_will going_to want_to wanted_to hope_to hoping_to thinking_of thinking_about
		signed_up sign_up work_at work_as work_on work_for works_at works_as works_on works_for
		worked_at worked_as worked_on worked_for working_at working_as working_on working_for`)
	myThings = setOf(`job career family kid kids son daughter husband wife partner mom mum dad mother
		father sister brother friend friends dog cat team boss`)

	smallTalkFirst = setOf(`hi hey hello bye goodbye thanks wow whoa lol omg yay cool nice awesome great
		amazing congrats congratulations absolutely totally exactly definitely sure oh yeah yes ok okay
		agreed true right glad`)
	smallTalkPairs = setOf(`good_morning good_night good_evening good_luck see_you talk_soon talk_later
		talk_to take_care thank_you sounds_good sounds_great sounds_fun sounds_amazing sounds_like
		so_glad me_too same_here you_too of_course no_way love_it love_that i'm_glad i'm_so`)
	thatsWhat = setOf(`great awesome amazing so cool nice fantastic good really wonderful sweet true
		interesting`)

	emotionalWords = setOf(`amazing awesome incredible beautiful wonderful fantastic`)
	emotionalPairs = setOf(`proud_of happy_for so_happy so_excited so_proud so_sweet so_cute so_fun
		so_cool means_a love_it love_that love_this`)

	causalWords = setOf(`because since due`)
	causalPairs = setOf(`so_that that's_why which_is in_order`)

	firstPersonWords  = setOf(`i i'm i've i'd i'll me my mine we we're we've we'll us our`)
	secondPersonWords = setOf(`you you're you've you'll you'd your yours`)

	numberWords = setOf(`two three four five six seven eight nine ten eleven twelve twenty thirty
		forty fifty hundred thousand million dozen first second third twice half`)
)

// pairFirst holds the first words of every two-word cue, so that score
// builds a pair key only where one can match.
var pairFirst = func() map[string]bool {
	m := map[string]bool{}
	for _, set := range []map[string]bool{eventPairs, causalPairs, emotionalPairs} {
		for p := range set {
			first, _, _ := strings.Cut(p, "_")
			m[first] = true
		}
	}
	return m
}()

// score returns how informative s is: facts about the speakers, entities,
// numbers, plans and decisions count for it; small talk, laughter,
// questions, reactions and very short sentences against it.
func score(s string) float64 {
	ws := splitWords(s)
	n := len(ws)
	v := perWord * float64(min(n, 30))

	var entities []string
	numbers, events := 0, 0
	var first, second, cause, emo, laugh bool
	for i, w := range ws {
		r, _ := utf8.DecodeRuneInString(w.raw)
		switch {
		case unicode.IsDigit(r) || numberWords[w.low]:
			numbers++
		case i > 0 && unicode.IsUpper(r) && w.low != "i" && !strings.HasPrefix(w.low, "i'"):
			if !contains(entities, w.raw) {
				entities = append(entities, w.raw)
			}
		}
		pair := ""
		if i+1 < len(ws) && pairFirst[w.low] {
			pair = w.low + "_" + ws[i+1].low
		}
		if eventWords[w.low] || eventPairs[pair] || (w.low == "my" && i+1 < len(ws) && myThings[ws[i+1].low]) {
			events++
		}
		first = first || firstPersonWords[w.low]
		second = second || secondPersonWords[w.low]
		cause = cause || causalWords[w.low] || causalPairs[pair]
		emo = emo || emotionalWords[w.low] || emotionalPairs[pair]
		laugh = laugh || strings.HasPrefix(w.low, "haha") || strings.HasPrefix(w.low, "hehe") || w.low == "lol" || w.low == "lmao"
	}
	laugh = laugh || strings.Contains(s, ":)") || strings.Contains(s, ":-)") || strings.Contains(s, ";)") || strings.Contains(s, ":D")

	v += perEntity * float64(min(len(entities), 3))
	v += perNumber * float64(min(numbers, 3))
	if events > 0 {
		v += firstEvent + moreEvents*float64(min(events-1, 2))
	}
	if first {
		v += firstPerson
	}
	if cause {
		v += causal
	}
	if smallTalkStart(ws) {
		if n <= 6 {
			v -= smallTalkLead
		} else {
			v -= smallTalkLong
		}
	}
	if laugh {
		v -= laughter
	}
	if strings.HasSuffix(strings.TrimRight(s, "\"'”’) "), "?") {
		v -= question
		if second {
			v -= askedBack
		}
	}
	if n < 5 {
		v -= tooShort
	}
	if emo && len(entities) == 0 && numbers == 0 {
		v -= emotional
	}
	if second && !first {
		v -= secondPerson
	}
	return v
}

// smallTalkStart reports whether a sentence opens like small talk:
// a greeting, thanks, an interjection, "that's great", "sounds good", …
func smallTalkStart(ws []word) bool {
	if len(ws) == 0 {
		return false
	}
	w := ws[0].low
	if smallTalkFirst[w] || strings.HasPrefix(w, "haha") || strings.HasPrefix(w, "aw") && strings.Trim(w, "aw") == "" {
		return true
	}
	if len(ws) < 2 {
		return false
	}
	if (w == "that's" || w == "thats") && thatsWhat[ws[1].low] {
		return true
	}
	return smallTalkPairs[w+"_"+ws[1].low]
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
