package consolidate

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"

	"github.com/swcmem/swc"
)

// PlanCache remembers consolidations between Compress calls. A
// consolidation of a conversation's first sessions depends only on those
// sessions, the budget, and the strategy's settings and engines, so an
// agent re-sending its growing history pays only for consolidations over
// sessions it has not sent before. Keys cover all of that; share a cache
// only among SWC values whose Salient and Anchor functions are the same
// (as one memory.Compressor's are). Implementations must be safe for
// concurrent use and may forget entries at any time.
type PlanCache interface {
	// Get returns the value stored under key.
	Get(key [32]byte) (any, bool)
	// Put stores v under key; bytes is about how much text v holds.
	Put(key [32]byte, v any, bytes int)
}

// mapCache is the PlanCache of one Compress call when SWC.Plans is nil:
// the final plan reuses the last consolidation's when both cover every
// session.
type mapCache map[[32]byte]any

func (m mapCache) Get(k [32]byte) (any, bool)   { v, ok := m[k]; return v, ok }
func (m mapCache) Put(k [32]byte, v any, _ int) { m[k] = v }

// planKeys returns, for each i, the key of a plan over c's first i+1
// sessions: the strategy's settings and engines, the speakers, and every
// field of those sessions that a plan reads. (A plan does not depend on
// the budget: budget cuts come after.)
func (s *SWC) planKeys(c *swc.Conversation) [][32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%+v\x00%v\x00%s\x00%s\x00%t\x00%s\x00%s\x00",
		s.name, s.Config, s.Variant, s.Embedder.Name(), s.Gister.Name(), s.Anchor != nil, c.SpeakerA, c.SpeakerB)
	keys := make([][32]byte, len(c.Sessions))
	var prev [32]byte
	h.Sum(prev[:0])
	for i := range c.Sessions {
		h.Reset()
		h.Write(prev[:])
		hashSession(h, &c.Sessions[i])
		h.Sum(keys[i][:0])
		prev = keys[i]
	}
	return keys
}

// hashSession writes every field of ses to h, each length-prefixed.
func hashSession(h hash.Hash, ses *swc.Session) {
	var b [8]byte
	num := func(n int64) {
		binary.LittleEndian.PutUint64(b[:], uint64(n))
		h.Write(b[:])
	}
	str := func(s string) {
		num(int64(len(s)))
		h.Write([]byte(s))
	}
	num(int64(ses.Index))
	t, _ := ses.Start.MarshalBinary() // zone offset included; never fails for a valid time
	str(string(t))
	str(ses.DateText)
	num(int64(len(ses.Turns)))
	for _, tn := range ses.Turns {
		str(tn.ID)
		str(tn.Speaker)
		str(tn.Text)
		if tn.Image == nil {
			num(-1)
			continue
		}
		str(tn.Image.Caption)
		str(tn.Image.Query)
		num(int64(len(tn.Image.URLs)))
		for _, u := range tn.Image.URLs {
			str(u)
		}
	}
}

// cachedPlan is planWith, remembered in pc under key (the plan covers
// c's sessions; gists is planWith's). The caller owns the returned plan.
func (s *SWC) cachedPlan(ctx context.Context, pc PlanCache, key [32]byte, c *swc.Conversation, memo *gistMemo, gists bool) (*plan, error) {
	if !gists { // a plan without gists is another entry
		key = sha256.Sum256(append(key[:], "scores only"...))
	}
	if v, ok := pc.Get(key); ok {
		if p, ok := v.(*plan); ok {
			return p.clone(), nil
		}
	}
	p, err := s.planWith(ctx, c, memo, gists)
	if err != nil {
		return nil, err
	}
	pc.Put(key, p.clone(), p.textBytes())
	return p, nil
}

// textBytes is about how much text p holds (its turns and gists).
func (p *plan) textBytes() int {
	n := 64 * len(p.chunks)
	for i := range p.chunks {
		ch := &p.chunks[i]
		n += len(ch.gist) + len(ch.reason) + 8*len(ch.turnTokens)
		for _, t := range ch.turns {
			n += len(t.Text) + len(t.ID) + len(t.Speaker) + 32
		}
	}
	return n
}
