package consolidate

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"unsafe"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/tokens"
)

// PlanCache remembers consolidations between Compress calls. A
// consolidation of a conversation's first sessions depends only on those
// sessions and the strategy's settings and engines (budget cuts come
// after, and are not remembered), so an
// agent re-sending its growing history pays only for consolidations over
// sessions it has not sent before. Keys cover all of that; share a cache
// only among SWC values whose Salient and Anchor functions are the same
// (as one memory.Compressor's are). Implementations must be safe for
// concurrent use and may forget entries at any time.
type PlanCache interface {
	// Get returns the value stored under key.
	Get(key [32]byte) (any, bool)
	// Put stores v under key; bytes is about how much text v holds. whole
	// says v is a plan of many sessions (large; used again when the same
	// history comes again) rather than one session's facts or gist (small;
	// used by every later request that holds the session).
	Put(key [32]byte, v any, bytes int, whole bool)
}

// mapCache is the PlanCache of one Compress call when SWC.Plans is nil:
// the final plan reuses the last consolidation's when both cover every
// session.
type mapCache map[[32]byte]any

func (m mapCache) Get(k [32]byte) (any, bool)           { v, ok := m[k]; return v, ok }
func (m mapCache) Put(k [32]byte, v any, _ int, _ bool) { m[k] = v }

// keySet holds the cache keys of one Compress call's conversation.
type keySet struct {
	chain   [][32]byte // chain[i]: a plan over sessions 0 to i
	session [][32]byte // session[i]: session i alone (see sessionFacts)
}

// calls is what one Compress call knows of its conversation's sessions:
// their keys, the cache, and each session's facts once looked up (every
// consolidation point and the final plan read the same ones).
type calls struct {
	s        *SWC
	c        *swc.Conversation
	pc       PlanCache
	keys     keySet
	speakers []string
	facts    []*sessionFacts
}

func (s *SWC) newCalls(c *swc.Conversation, pc PlanCache) *calls {
	return &calls{s: s, c: c, pc: pc, keys: s.planKeys(c), speakers: []string{c.SpeakerA, c.SpeakerB}, facts: make([]*sessionFacts, len(c.Sessions))}
}

// fact returns session i's facts.
func (k *calls) fact(i int) *sessionFacts {
	if k.facts[i] == nil {
		k.facts[i] = k.s.facts(k.pc, k.keys.session[i], &k.c.Sessions[i], k.speakers)
	}
	return k.facts[i]
}

// planKeys returns the keys of c's plans and sessions: each covers the
// strategy's settings and engines, the speakers, and every field of the
// sessions it covers that a plan reads. (A plan does not depend on the
// budget: budget cuts come after.)
func (s *SWC) planKeys(c *swc.Conversation) keySet {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%+v\x00%v\x00%s\x00%s\x00%t\x00%s\x00%s\x00",
		s.name, s.Config, s.Variant, s.Embedder.Name(), s.Gister.Name(), s.Anchor != nil, c.SpeakerA, c.SpeakerB)
	var settings [32]byte
	h.Sum(settings[:0])
	ks := keySet{chain: make([][32]byte, len(c.Sessions)), session: make([][32]byte, len(c.Sessions))}
	prev := settings
	for i := range c.Sessions {
		h.Reset()
		h.Write(settings[:])
		hashSession(h, &c.Sessions[i])
		h.Sum(ks.session[i][:0])
		h.Reset()
		h.Write(prev[:])
		h.Write(ks.session[i][:])
		h.Sum(ks.chain[i][:0])
		prev = ks.chain[i]
	}
	return ks
}

// derive returns the key of another entry about what key names.
func derive(key [32]byte, what string) [32]byte {
	return sha256.Sum256(append(key[:], what...))
}

// sessionFacts is what a plan needs of one session that depends on that
// session alone: its turns as shown (anchored for swc-anchored), their
// costs, its header's cost, its density numerator over denominator, and
// its cost as it came (tokens.Session: what schedules count).
type sessionFacts struct {
	turns      []swc.Turn
	turnTokens []int
	header     int
	density    float64
	tokens     int
}

// facts returns ses's facts, from pc under key when there.
func (s *SWC) facts(pc PlanCache, key [32]byte, ses *swc.Session, speakers []string) *sessionFacts {
	key = derive(key, "facts")
	if v, ok := pc.Get(key); ok {
		if f, ok := v.(*sessionFacts); ok {
			return f
		}
	}
	f := &sessionFacts{turns: ses.Turns}
	if s.Anchor != nil {
		f.turns = make([]swc.Turn, len(ses.Turns))
		for j, t := range ses.Turns {
			t.Text = s.Anchor(t.Text, ses.Start)
			f.turns[j] = t
		}
	}
	f.header = tokens.Header(ses)
	f.turnTokens = make([]int, len(f.turns))
	f.tokens = f.header
	for j, t := range f.turns {
		f.turnTokens[j] = tokens.Turn(t)
		f.tokens += f.turnTokens[j]
	}
	if s.Anchor != nil { // the turns as shown are not the turns as they came
		f.tokens = tokens.Session(ses)
	}
	// Density: (entities + numbers) per token of the same text.
	cnt, toks := 0, 0
	bytes := 64
	for _, t := range ses.Turns {
		cnt += s.Salient(t.Text, speakers)
		toks += tokens.CountCached(t.Text)
		bytes += 2*len(t.Text) + len(t.ID) + len(t.Speaker) + 48
	}
	if toks > 0 {
		f.density = float64(cnt) / float64(toks)
	}
	pc.Put(key, f, bytes, false)
	return f
}

// sessionGist is a session's gist and the cost of its gist block.
type sessionGist struct {
	gist   string
	tokens int
}

// hashSession writes every field of ses to h, each length-prefixed:
// lengths and short fields gathered in a buffer, long texts written as
// they are (Write reads p and keeps nothing, so no copy is made).
func hashSession(h hash.Hash, ses *swc.Session) {
	var arr [512]byte
	b := arr[:0]
	num := func(n int64) {
		if len(b)+8 > len(arr) {
			h.Write(b)
			b = b[:0]
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(n))
	}
	str := func(s string) {
		num(int64(len(s)))
		if len(b)+len(s) <= len(arr) {
			b = append(b, s...)
			return
		}
		h.Write(b)
		b = b[:0]
		h.Write(unsafe.Slice(unsafe.StringData(s), len(s)))
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
	h.Write(b)
}

// cachedPlan is planWith, remembered in the cache (the plan covers
// c's sessions; gists is planWith's). The caller owns the returned plan.
func (s *SWC) cachedPlan(ctx context.Context, k *calls, c *swc.Conversation, memo *gistMemo, gists bool) (*plan, error) {
	key, pc := k.keys.chain[len(c.Sessions)-1], k.pc
	if !gists { // a plan without gists is another entry
		key = sha256.Sum256(append(key[:], "scores only"...))
	}
	if v, ok := pc.Get(key); ok {
		if p, ok := v.(*plan); ok {
			return p.clone(), nil
		}
	}
	p, err := s.planWith(ctx, c, memo, gists, k)
	if err != nil {
		return nil, err
	}
	pc.Put(key, p.clone(), p.textBytes(), true)
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
