package term

import (
	"hash/maphash"
	"sync/atomic"
)

// stems remembers the terms of recently seen raw words: Porter stemming
// is most of the cost of scanning a text into terms, and a conversation
// repeats a few thousand words many times over. The cache is direct
// mapped (a word's hash picks its one slot; a new word replaces the old),
// so its memory is fixed — stemSlots entries at most — whatever the input,
// and reads and writes take no lock.
var stems [stemSlots]atomic.Pointer[stemEntry]

const stemSlots = 1 << 13

var stemSeed = maphash.MakeSeed()

type stemEntry struct {
	raw, term string
	keep      bool
}

// cached returns Stem's answer for raw, from the cache or computed and
// remembered. Words over 32 bytes are not remembered.
func cached(raw string, stem func(string) (string, bool)) (string, bool) {
	if len(raw) > 32 {
		return stem(raw)
	}
	slot := &stems[maphash.String(stemSeed, raw)&(stemSlots-1)]
	if e := slot.Load(); e != nil && e.raw == raw {
		return e.term, e.keep
	}
	t, keep := stem(raw)
	slot.Store(&stemEntry{raw: raw, term: t, keep: keep})
	return t, keep
}
