package memory

import (
	"time"

	"github.com/swcmem/swc/bm25"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/mention"
	"github.com/swcmem/swc/strategy"
)

// DefaultMemoBytes is the default of Options.MemoBytes: the bytes a
// Compressor's memos hold at most, all together.
const DefaultMemoBytes = 192 << 20

// memos are a Compressor's memos. A Compressor keeps the derived values
// of the history's unchanged parts (gists, anchors, entity counts, plans)
// between calls, so that an agent re-sending its history each turn pays
// for the new messages only.
type memos struct {
	anchor       func(text string, ref time.Time) string  // mention.Anchor
	salientCount func(text string, speakers []string) int // Salient
	terms        func(text string) []string               // bm25.Terms (swc-select's turn analysis)
	gists        *memo.Memo[memo.GistKey, string]
	plans        planMemo
	blocks       *memo.Memo[[32]byte, *memBlock]  // epoch memories, by memoryKey
	loops        *memo.Memo[[32]byte, *loopEpoch] // tool loops' stubs and dropped calls, by loopEpochOf's key
	stubs        *memo.Memo[stubKey, stubVal]     // tool loops' stubs, one by one (Compressor.stub)
	ids          *memo.Memo[string, []string]     // observe.Identifiers of texts
	counts       *memo.Memo[string, int]          // tokens of long texts (Compressor.countText)
	loop         loopMemos                        // what a loop's epochs repeat (loop_speed.go)
}

// newMemos returns memos holding at most about total bytes: a sixteenth
// of it per generation for the anchors, the entity counts, the index
// terms, the gists, the epoch memories and the whole plans, an eighth for
// the sessions' plans (each memo holds two generations, memo.Memo).
func newMemos(total int) *memos {
	memoBytes := max(total/16, 1)
	return &memos{
		anchor:       memo.Anchor(mention.Anchor, memoBytes),
		salientCount: memo.Salient(strategy.Salient, memoBytes),
		terms:        memo.Terms(bm25.Terms, memoBytes),
		gists:        memo.NewGists(memoBytes),
		blocks:       memo.New(memoBytes, func(_ [32]byte, b *memBlock) int { return 2*len(b.text) + 64*len(b.sessions) }),
		loops:        memo.New(memoBytes, func(_ [32]byte, e *loopEpoch) int { return e.size() }),
		stubs:        newStubMemo(memoBytes),
		ids:          newIDMemo(memoBytes),
		counts:       memo.New(memoBytes, func(s string, _ int) int { return len(s) }),
		loop:         newLoopMemos(memoBytes),
		plans: planMemo{
			plans:    memo.New(memoBytes, func(_ [32]byte, v sizedPlan) int { return v.bytes }),
			sessions: memo.New(2*memoBytes, func(_ [32]byte, v sizedPlan) int { return v.bytes }),
		},
	}
}

// planMemo is the consolidate.PlanCache of a Compressor: whole plans
// apart from sessions' facts and gists, so that the plans of histories
// that never come again (an agent's grows every request) do not push out
// the sessions every later request uses.
type planMemo struct {
	plans, sessions *memo.Memo[[32]byte, sizedPlan]
}

type sizedPlan struct {
	v     any
	bytes int
}

var _ consolidate.PlanCache = planMemo{}

func (p planMemo) Get(k [32]byte) (any, bool) {
	if v, ok := p.sessions.Get(k); ok {
		return v.v, true
	}
	v, ok := p.plans.Get(k)
	return v.v, ok
}

func (p planMemo) Put(k [32]byte, v any, bytes int, whole bool) {
	if whole {
		p.plans.Put(k, sizedPlan{v, bytes})
	} else {
		p.sessions.Put(k, sizedPlan{v, bytes})
	}
}
