package memo

import "sync"

// The shared memos are the package-level ones every part of a process
// uses (token counts, index terms, mention tokens, sentence scores): they
// are keyed by text, so one tenant's texts and another's share them.
// SetSharedBudget sizes them together, from the one memory budget of
// swc serve (--memory-limit).

var shared struct {
	mu     sync.Mutex
	memos  []sharedMemo
	budget int // 0: each at its default
}

type sharedMemo struct {
	def    int
	setMax func(int)
	bytes  func() int
}

// NewShared returns a Memo like New, registered as one of the process's
// shared memos: def is its bytes per generation until SetSharedBudget is
// called, and its weight in the budget then.
func NewShared[K comparable, V any](def int, size func(K, V) int) *Memo[K, V] {
	m := New(def, size)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.memos = append(shared.memos, sharedMemo{def: def, setMax: m.SetMax, bytes: m.Bytes})
	resizeShared()
	return m
}

// SetSharedBudget sizes every shared memo so that together they hold at
// most about total bytes: each its share of total in proportion to its
// default, in two generations of half that share. Zero or less restores
// the defaults.
func SetSharedBudget(total int) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.budget = max(total, 0)
	resizeShared()
}

// resizeShared applies the budget; shared.mu is held.
func resizeShared() {
	sum := 0
	for _, m := range shared.memos {
		sum += m.def
	}
	for _, m := range shared.memos {
		n := m.def
		if shared.budget > 0 && sum > 0 {
			n = max(int(int64(shared.budget)*int64(m.def)/int64(sum)/2), 1)
		}
		m.setMax(n)
	}
}

// SharedBytes returns the bytes the shared memos hold now (Memo.Bytes
// summed).
func SharedBytes() int {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	n := 0
	for _, m := range shared.memos {
		n += m.bytes()
	}
	return n
}
