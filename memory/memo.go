package memory

import (
	"strings"
	"time"

	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/mention"
)

// memoBytes bounds the text each generation of a Compressor's memos holds
// (keys and values): a memo holds at most about twice that (memo.Memo).
const memoBytes = 16 << 20

// memos are a Compressor's memos. A Compressor keeps the derived values
// of the history's unchanged parts (gists, anchors, entity counts, plans)
// between calls, so that an agent re-sending its history each turn pays
// for the new messages only.
type memos struct {
	anchors *memo.Memo[anchorKey, string]
	salient *memo.Memo[string, int]
	gists   *memo.Memo[gistKey, string]
	plans   planMemo
}

type anchorKey struct {
	text string
	ref  time.Time
}

func newMemos() *memos {
	return &memos{
		anchors: memo.New(memoBytes, func(k anchorKey, v string) int { return len(k.text) + len(v) }),
		salient: memo.New(memoBytes, func(k string, _ int) int { return len(k) }),
		gists: memo.New(memoBytes, func(k gistKey, v string) int {
			return len(k.gister) + len(k.req.Text) + len(k.req.Date) + len(v)
		}),
		plans: planMemo{
			plans:    memo.New(memoBytes, func(_ [32]byte, v sizedPlan) int { return v.bytes }),
			sessions: memo.New(2*memoBytes, func(_ [32]byte, v sizedPlan) int { return v.bytes }),
		},
	}
}

// anchor is mention.Anchor, memoised.
func (ms *memos) anchor(text string, ref time.Time) string {
	k := anchorKey{text, ref}
	if v, ok := ms.anchors.Get(k); ok {
		return v
	}
	v := mention.Anchor(text, ref)
	ms.anchors.Put(k, v)
	return v
}

// salientCount is Salient, memoised.
func (ms *memos) salientCount(text string, speakers []string) int {
	k := strings.Join(speakers, "\x00") + "\x01" + text
	if v, ok := ms.salient.Get(k); ok {
		return v
	}
	v := Salient(text, speakers)
	ms.salient.Put(k, v)
	return v
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
