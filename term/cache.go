package term

import "github.com/swcmem/swc/internal/memo"

// stems remembers the terms of recently seen raw words: Porter stemming
// is most of the cost of scanning a text into terms, and a conversation
// repeats a few thousand words many times over. The cache is direct
// mapped (memo.Slots: a word's hash picks its one slot; a new word
// replaces the old), so its memory is fixed — stemSlots entries at most —
// whatever the input, and reads and writes take no lock. Words over
// memo.SlotKeyMax (32) bytes are not remembered.
var stems = memo.NewSlots[stemmed](stemSlots)

const stemSlots = 1 << 13

type stemmed struct {
	term string
	keep bool
}

func stemOf(raw string) stemmed {
	t, keep := stem(raw)
	return stemmed{t, keep}
}

// StemBytes is Stem of string(raw), without making the string when raw's
// term is remembered.
func StemBytes(raw []byte) (string, bool) {
	e := stems.GetBytes(raw, stemOf)
	return e.term, e.keep
}
