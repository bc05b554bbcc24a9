package gist

import (
	"sync"
	"sync/atomic"
)

// The same sentences are scored again and again in one process: every
// gist variant, every budget and every replay step re-reads the turns of
// the same sessions. score is pure, so its results are remembered.
var (
	scoreMemo  sync.Map // string → float64
	scoreMemoN atomic.Int64
)

// scoreMemoLimit bounds the memo; past it, sentences are scored each time.
const scoreMemoLimit = 1 << 20

// scoreCached is score, remembered.
func scoreCached(s string) float64 {
	if v, ok := scoreMemo.Load(s); ok {
		return v.(float64)
	}
	v := score(s)
	if scoreMemoN.Load() < scoreMemoLimit {
		if _, loaded := scoreMemo.LoadOrStore(s, v); !loaded {
			scoreMemoN.Add(1)
		}
	}
	return v
}
