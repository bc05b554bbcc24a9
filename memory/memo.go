package memory

import (
	"strings"
	"sync"
	"time"

	"github.com/swcmem/swc/mention"
)

// memoBytes bounds the text each of a Compressor's memos holds (keys and
// values); a full memo starts over.
const memoBytes = 16 << 20

// memo is a bounded concurrent map. A Compressor keeps the derived values
// of the history's unchanged parts (gists, anchors, entity counts) between
// calls, so that an agent re-sending its history each turn pays for the new
// messages only.
type memo[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]V
	bytes int
	size  func(K, V) int // the text an entry holds
}

func (m *memo[K, V]) get(k K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[k]
	return v, ok
}

func (m *memo[K, V]) put(k K, v V) {
	n := m.size(k, v) + 64
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || m.bytes+n > memoBytes {
		m.m, m.bytes = make(map[K]V), 0
	}
	if _, ok := m.m[k]; !ok {
		m.bytes += n
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

func newMemos() *memos {
	ms := &memos{}
	ms.anchors.size = func(k anchorKey, v string) int { return len(k.text) + len(v) }
	ms.salient.size = func(k string, _ int) int { return len(k) }
	ms.gists.size = func(k gistKey, v string) int { return len(k.gister) + len(k.req.Text) + len(k.req.Date) + len(v) }
	return ms
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
