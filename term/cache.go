package term

import "github.com/swcmem/swc/internal/memo"

// stems remembers the terms of recently seen raw words: Porter stemming
// is most of the cost of scanning a text into terms, and a conversation
// repeats a few thousand words many times over. The cache is direct
// mapped (memo.Slots: a word's hash picks its one slot; a new word
// replaces the old), so its memory is fixed — stemSlots entries at most —
// whatever the input, and reads and writes take no lock.
var stems = memo.NewSlots[stemmed](stemSlots)

const stemSlots = 1 << 13

type stemmed struct {
	term string
	keep bool
}

// cached returns Stem's answer for raw, from the cache or computed and
// remembered. Words over memo.SlotKeyMax (32) bytes are not remembered.
func cached(raw string, stem func(string) (string, bool)) (string, bool) {
	e := stems.Get(raw, func(raw string) stemmed {
		t, keep := stem(raw)
		return stemmed{t, keep}
	})
	return e.term, e.keep
}
