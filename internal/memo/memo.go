// Package memo holds Memo, the bounded concurrent map that swc's
// long-running parts (the proxy's compressors, the service's engines)
// remember derived values in: gists, anchors, entity counts, plans,
// embeddings. Unbounded maps there would grow with every request. Its
// decorators (Gister, Embedder, Salient, Anchor) remember what the
// deterministic engines compute, for the CLI and memory.Compressor alike.
package memo

import "sync"

// Memo is a concurrent map that holds about Max bytes per generation
// (each entry's bytes as Size says, plus 64): when the current generation
// is full it becomes the old one and the previous old one is forgotten; an
// entry found in the old generation moves back to the current one. What is
// used keeps its place; what is not is forgotten after two generations, so
// a Memo holds at most about 2·Max bytes. The zero Memo is not usable: make
// one with New.
type Memo[K comparable, V any] struct {
	mu       sync.Mutex
	cur, old map[K]V
	bytes    int // of cur
	oldBytes int
	max      int
	size     func(K, V) int
}

// New returns an empty Memo of max bytes per generation; size returns the
// bytes an entry holds (its text, say).
func New[K comparable, V any](max int, size func(K, V) int) *Memo[K, V] {
	return &Memo[K, V]{max: max, size: size}
}

// Get returns the value stored under k.
func (m *Memo[K, V]) Get(k K) (V, bool) { return m.GetOwn(k, nil) }

// GetOwn is Get for a key that aliases memory the memo must not keep (a
// string over a request's bytes): an entry found in the old generation
// moves back to the current one under own(v), a key the value carries,
// not under k (nil own: under k, as Get).
func (m *Memo[K, V]) GetOwn(k K, own func(V) K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.cur[k]; ok {
		return v, true
	}
	v, ok := m.old[k]
	if ok {
		delete(m.old, k)
		if own != nil {
			k = own(v)
		}
		m.add(k, v)
	}
	return v, ok
}

// Put stores v under k.
func (m *Memo[K, V]) Put(k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.cur[k]; ok {
		m.cur[k] = v
		return
	}
	delete(m.old, k)
	m.add(k, v)
}

// Len returns the number of entries held, and the bytes of the current
// generation.
func (m *Memo[K, V]) Len() (entries, bytes int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.cur) + len(m.old), m.bytes
}

// Bytes returns the bytes both generations hold (as size counts them,
// plus 64 an entry; an entry moved back from the old generation is
// counted in both until the old one is forgotten).
func (m *Memo[K, V]) Bytes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes + m.oldBytes
}

// SetMax sets the bytes of a generation. Shrinking forgets the old
// generation, and the current one too when it holds more than max, so
// that the memo holds at most about 2·max bytes from then on.
func (m *Memo[K, V]) SetMax(max int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if max < m.max {
		m.old, m.oldBytes = nil, 0
		if m.bytes > max {
			m.cur, m.bytes = nil, 0
		}
	}
	m.max = max
}

// add stores a new entry in the current generation; m.mu is held.
func (m *Memo[K, V]) add(k K, v V) {
	n := m.size(k, v) + 64
	if m.cur == nil || m.bytes+n > m.max {
		m.old, m.oldBytes = m.cur, m.bytes
		m.cur, m.bytes = make(map[K]V), 0
	}
	m.cur[k] = v
	m.bytes += n
}
