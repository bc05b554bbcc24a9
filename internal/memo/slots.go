package memo

import (
	"hash/maphash"
	"sync/atomic"
)

// Slots is a fixed-size, lock-free cache of short strings' values for hot
// loops (a word's term, a token piece's count): a key's hash picks its one
// slot and a new key replaces the old, so it never holds more than its
// slots whatever the input, and neither reads nor writes take a lock. Keys
// longer than SlotKeyMax bytes are not remembered. The zero Slots is not
// usable: make one with NewSlots.
type Slots[V any] struct {
	slots []atomic.Pointer[slot[V]]
	mask  uint64
	seed  maphash.Seed
}

// SlotKeyMax is the longest key Slots remembers.
const SlotKeyMax = 32

type slot[V any] struct {
	key string
	v   V
}

// NewSlots returns an empty Slots of n slots (rounded up to a power of
// two).
func NewSlots[V any](n int) *Slots[V] {
	size := 1
	for size < n {
		size *= 2
	}
	return &Slots[V]{slots: make([]atomic.Pointer[slot[V]], size), mask: uint64(size - 1), seed: maphash.MakeSeed()}
}

// Get returns the value remembered for k, or fn(k), remembered when k is
// at most SlotKeyMax bytes (a copy of k is kept, so k may be part of a
// larger string).
func (s *Slots[V]) Get(k string, fn func(string) V) V {
	if len(k) > SlotKeyMax {
		return fn(k)
	}
	p := &s.slots[maphash.String(s.seed, k)&s.mask]
	if e := p.Load(); e != nil && e.key == k {
		return e.v
	}
	v := fn(k)
	p.Store(&slot[V]{key: string([]byte(k)), v: v})
	return v
}

// GetBytes is Get of string(k), without making the string when k is
// remembered.
func (s *Slots[V]) GetBytes(k []byte, fn func(string) V) V {
	if len(k) > SlotKeyMax {
		return fn(string(k))
	}
	p := &s.slots[maphash.Bytes(s.seed, k)&s.mask]
	if e := p.Load(); e != nil && e.key == string(k) {
		return e.v
	}
	key := string(k)
	v := fn(key)
	p.Store(&slot[V]{key: key, v: v})
	return v
}
