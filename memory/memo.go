package memory

import (
	"strings"
	"sync"
	"time"

	"github.com/swcmem/swc/mention"
)

// memoLimit bounds each of a Compressor's memos; a full memo starts over.
const memoLimit = 1 << 16

// memo is a bounded concurrent map. A Compressor keeps the derived values
// of the history's unchanged parts (gists, anchors, entity counts) between
// calls, so that an agent re-sending its history each turn pays for the new
// messages only.
type memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

func (m *memo[K, V]) get(k K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[k]
	return v, ok
}

func (m *memo[K, V]) put(k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= memoLimit {
		m.m = make(map[K]V)
	}
	m.m[k] = v
}

type anchorKey struct {
	text string
	ref  time.Time
}

// memos are a Compressor's memos.
type memos struct {
	anchors memo[anchorKey, string]
	salient memo[string, int]
	gists   memo[gistKey, string]
}

// anchor is mention.Anchor, memoised.
func (ms *memos) anchor(text string, ref time.Time) string {
	k := anchorKey{text, ref}
	if v, ok := ms.anchors.get(k); ok {
		return v
	}
	v := mention.Anchor(text, ref)
	ms.anchors.put(k, v)
	return v
}

// salientCount is Salient, memoised.
func (ms *memos) salientCount(text string, speakers []string) int {
	k := strings.Join(speakers, "\x00") + "\x01" + text
	if v, ok := ms.salient.get(k); ok {
		return v
	}
	v := Salient(text, speakers)
	ms.salient.put(k, v)
	return v
}
