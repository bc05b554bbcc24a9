package mention

import (
	"sort"
	"time"
)

// Kind is the type of a mention.
type Kind string

// The mention kinds. The first six are temporal.
const (
	Date     Kind = "date"
	Time     Kind = "time"
	Relative Kind = "relative"
	Duration Kind = "duration"
	Age      Kind = "age"
	Set      Kind = "set"
	Entity   Kind = "entity"
	Number   Kind = "number"
	Event    Kind = "event"
)

// Temporal reports whether k is one of the temporal kinds (date, time,
// relative, duration, age, set).
func (k Kind) Temporal() bool {
	switch k {
	case Date, Time, Relative, Duration, Age, Set:
		return true
	}
	return false
}

// Mention is one span of text. Start and End are byte offsets into the text
// it was found in (Text == text[Start:End]). Value is the TIMEX3/ISO 8601
// value of a temporal mention and the lemma of an event; Phrase is the
// canonical LoCoMo-style wording of a resolved temporal mention. Both are
// empty where they do not apply.
type Mention struct {
	Kind   Kind   `json:"kind"`
	Text   string `json:"text"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Value  string `json:"value"`
	Phrase string `json:"phrase"`
}

// All returns the temporal expressions (resolved against ref), named
// entities, numbers and events of text, sorted by Start (ties: longer
// first, then by kind).
func All(text string, ref time.Time, speakers []string) []Mention {
	toks := tokens(text)
	out := temporal(text, toks, ref)
	out = append(out, entities(text, toks, speakers)...)
	out = append(out, numbers(text, toks)...)
	out = append(out, events(text, toks)...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Start != out[j].Start {
			return out[i].Start < out[j].Start
		}
		if out[i].End != out[j].End {
			return out[i].End > out[j].End
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// Temporal returns the temporal expressions of text in order, each resolved
// against ref (the start of the session the text was said in). With a zero
// ref, values that need a reference are left empty.
func Temporal(text string, ref time.Time) []Mention {
	return temporal(text, tokens(text), ref)
}

// HasTemporal reports whether text contains at least one temporal expression.
func HasTemporal(text string) bool {
	if v, ok := hasTemporalMemo.Get(text); ok {
		return v
	}
	v := len(temporal(text, tokens(text), time.Time{})) > 0
	hasTemporalMemo.Put(text, v)
	return v
}

// Entities returns the named entities of text (people, places,
// organisations, titles of works, products). Names in speakers are always
// recognised, even at the start of a sentence.
func Entities(text string, speakers []string) []Mention {
	return entities(text, tokens(text), speakers)
}

// Numbers returns the numbers of text: digit sequences and number words.
func Numbers(text string) []Mention {
	return numbers(text, tokens(text))
}

// Events returns the event mentions of text (see the package doc for the
// definition); Value holds the lemma.
func Events(text string) []Mention {
	return events(text, tokens(text))
}
