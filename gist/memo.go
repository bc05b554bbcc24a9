package gist

import "github.com/swcmem/swc/internal/memo"

// The same sentences are scored again and again in one process: every
// gist variant, every budget and every replay step re-reads the turns of
// the same sessions. score is pure, so its results are remembered, in a
// bounded memo (a service runs for months): about scoreMemoBytes of
// sentences per generation.
const scoreMemoBytes = 64 << 20

var scoreMemo = memo.NewShared(scoreMemoBytes, func(s string, _ float64) int { return len(s) })

// scoreCached is score, remembered.
func scoreCached(s string) float64 {
	if v, ok := scoreMemo.Get(s); ok {
		return v
	}
	v := score(s)
	scoreMemo.Put(s, v)
	return v
}
