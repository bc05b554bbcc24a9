package consolidate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/embed"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mock"
	"github.com/swcmem/swc/tokens"
)

// conversationOf builds one session per element of sessions, each turn's
// text given.
func conversationOf(sessions ...[]string) *swc.Conversation {
	c := &swc.Conversation{ID: "h", SpeakerA: "Ana", SpeakerB: "Ben"}
	start := time.Date(2023, 5, 1, 10, 0, 0, 0, time.UTC)
	for i, turns := range sessions {
		ses := swc.Session{Index: i, Start: start.AddDate(0, 0, i), DateText: start.AddDate(0, 0, i).Format("3:04 pm on 2 January, 2006")}
		for j, text := range turns {
			ses.Turns = append(ses.Turns, swc.Turn{ID: fmt.Sprintf("D%d:%d", i+1, j+1), Speaker: []string{"Ana", "Ben"}[j%2], Text: text})
		}
		c.Sessions = append(c.Sessions, ses)
	}
	return c
}

// vectorEmbedder returns the vector vecs[text] for each text.
func vectorEmbedder(vecs map[string][]float32) *mock.Embedder {
	return &mock.Embedder{EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			v, ok := vecs[t]
			if !ok {
				return nil, fmt.Errorf("no vector for %q", t)
			}
			out[i] = append([]float32(nil), v...)
		}
		return out, nil
	}}
}

// TestDownstreamHandWorked checks the downstream signal against values
// worked out by hand, with vectors that are not unit length (as a remote
// embedder may return): each turn vector is normalised before the chunk
// mean, so a long vector does not outweigh its neighbours.
//
// Session 0: a=(10,0,0), b=(0,1,0) → chunk (1,1,0)/√2.
// Session 1: c=(0,2,0), d=(0,0,3) → chunk (0,1,1)/√2.
// Session 2: e=(1,1,0), f=(0,0,1).
// Cosines of chunk 0 with the later turns c, d, e, f: 1/√2, 0, 1, 0;
// of chunk 1 with e, f: 1/2, 1/√2.
func TestDownstreamHandWorked(t *testing.T) {
	c := conversationOf([]string{"a", "b"}, []string{"c", "d"}, []string{"e", "f"})
	emb := vectorEmbedder(map[string][]float32{
		"a": {10, 0, 0}, "b": {0, 1, 0}, "c": {0, 2, 0}, "d": {0, 0, 3}, "e": {1, 1, 0}, "f": {0, 0, 1},
	})
	r2 := 1 / math.Sqrt2
	for _, tt := range []struct {
		k    int
		want [3]float64
	}{
		{1, [3]float64{1, r2, 0}},
		{2, [3]float64{(1 + r2) / 2, (0.5 + r2) / 2, 0}},
		{5, [3]float64{(r2 + 0 + 1 + 0) / 4, (0.5 + r2) / 2, 0}},
	} {
		s := New("swc-full", emb, lineGister(), swc.GistFull, countCaps)
		s.Config.TopK = tt.k
		sigs, err := s.signals(context.Background(), c, densities(s, c))
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range tt.want {
			if got := sigs[i].Downstream; math.Abs(got-want) > 1e-6 {
				t.Errorf("k=%d session %d downstream = %.7f, want %.7f", tt.k, i, got, want)
			}
		}
	}
}

// bruteDownstream is the downstream signal written out plainly: unit turn
// vectors, their mean normalised, cosine with every later turn in float64,
// sorted, the mean of the top k, clamped to [0, 1].
func bruteDownstream(sessions [][][]float32, k int) []float64 {
	unit := func(v []float32) []float64 {
		out := make([]float64, len(v))
		n := 0.0
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		for i, x := range v {
			if n > 0 {
				out[i] = float64(x) / math.Sqrt(n)
			}
		}
		return out
	}
	out := make([]float64, len(sessions))
	for i := range sessions {
		mean := make([]float64, len(sessions[i][0]))
		for _, v := range sessions[i] {
			for d, x := range unit(v) {
				mean[d] += x
			}
		}
		n := 0.0
		for _, x := range mean {
			n += x * x
		}
		var sims []float64
		for _, later := range sessions[i+1:] {
			for _, v := range later {
				u, dot := unit(v), 0.0
				for d := range u {
					dot += u[d] * mean[d]
				}
				if n > 0 {
					dot /= math.Sqrt(n)
				}
				sims = append(sims, dot)
			}
		}
		if len(sims) == 0 {
			continue
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(sims)))
		m := min(k, len(sims))
		sum := 0.0
		for _, x := range sims[:m] {
			sum += x
		}
		out[i] = min(max(sum/float64(m), 0), 1)
	}
	return out
}

// TestDownstreamOracle compares the downstream signal with bruteDownstream
// for k = 1, 2, 5 on random conversations (vectors of random length and
// sign) and on the sample conversation with the lexical embedder.
func TestDownstreamOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(name string, c *swc.Conversation, emb swc.Embedder) {
		t.Helper()
		var texts []string
		for _, ses := range c.Sessions {
			for _, tu := range ses.Turns {
				texts = append(texts, embedText(tu))
			}
		}
		vecs, err := emb.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		var sessions [][][]float32
		for _, ses := range c.Sessions {
			sessions = append(sessions, vecs[:len(ses.Turns)])
			vecs = vecs[len(ses.Turns):]
		}
		for _, k := range []int{1, 2, 5} {
			s := New("swc-full", emb, lineGister(), swc.GistFull, countCaps)
			s.Config.TopK = k
			sigs, err := s.signals(context.Background(), c, densities(s, c))
			if err != nil {
				t.Fatal(err)
			}
			want := bruteDownstream(sessions, k)
			for i := range want {
				if math.Abs(sigs[i].Downstream-want[i]) > 1e-6 {
					t.Errorf("%s k=%d session %d: downstream %.8f, brute force %.8f", name, k, i, sigs[i].Downstream, want[i])
				}
			}
		}
	}
	for trial := range 20 {
		dim := 2 + rng.IntN(30)
		vecs := map[string][]float32{}
		var sessions [][]string
		for i := range 2 + rng.IntN(8) {
			var turns []string
			for j := range 1 + rng.IntN(6) {
				text := fmt.Sprintf("t%d.%d", i, j)
				v := make([]float32, dim)
				scale := float32(math.Pow(10, rng.Float64()*4-2))
				for d := range v {
					if rng.IntN(3) > 0 {
						v[d] = scale * float32(rng.NormFloat64())
					}
				}
				vecs[text] = v
				turns = append(turns, text)
			}
			sessions = append(sessions, turns)
		}
		check(fmt.Sprintf("random %d", trial), conversationOf(sessions...), vectorEmbedder(vecs))
	}
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	check("sample, lexical", convs[0], embed.New())
}

// TestDensitySameText: density counts entities and numbers in the turns'
// text and divides by the tokens of that same text — not of the header,
// the speaker labels or image captions. Two sessions saying the same words
// have the same density, however long their captions; the values are
// worked out from the counts.
func TestDensitySameText(t *testing.T) {
	said := []string{"We met Carla in Lisbon and Porto.", "I paid 40 euros for 3 tickets to Rome."}
	third := "Then Dana came over with food for everyone"
	c := conversationOf(said, said, []string{third})
	for j := range c.Sessions[1].Turns {
		c.Sessions[1].Turns[j].Image = &swc.Image{Caption: "a long caption about a photograph of a street at night with many lights and people"}
	}
	s := New("swc-full", hashEmbedder(), lineGister(), swc.GistFull, countCaps)
	x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	// countCaps: "Carla", "Lisbon", "Porto" (the first word never counts)
	// and "Rome"; the third session has "Dana".
	words := tokens.Count(said[0]) + tokens.Count(said[1])
	raw := 4.0 / float64(words)
	want := []float64{1, 1, (1 / float64(tokens.Count(third))) / raw}
	for i, ch := range x.Chunks {
		if math.Abs(ch.Signals.Density-want[i]) > 1e-12 {
			t.Errorf("session %d density %.6f, want %.6f (raw %d salient / %d tokens of turn text = %.4f)", i, ch.Signals.Density, want[i], 4, words, raw)
		}
	}
}

// denseOnly hides an embedder's EmbedSparse, so signals take the dense path.
type denseOnly struct{ swc.Embedder }

// TestSignalsSparseEqualsDense: the lexical embedder's sparse path gives
// the very same signals as its dense vectors, on every LoCoMo conversation
// (the sample when the data is absent).
func TestSignalsSparseEqualsDense(t *testing.T) {
	for _, c := range locomotest.Load(t) {
		sparse := New("swc-full", embed.New(), lineGister(), swc.GistFull, countCaps)
		dense := New("swc-full", denseOnly{embed.New()}, lineGister(), swc.GistFull, countCaps)
		got, err := sparse.signals(context.Background(), c, densities(sparse, c))
		if err != nil {
			t.Fatal(err)
		}
		want, err := dense.signals(context.Background(), c, densities(dense, c))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: sparse signals %v\ndense %v", c.ID, got, want)
		}
	}
}

// densities returns the density of each session of c before scaling, as
// planWith hands them to signals.
func densities(s *SWC, c *swc.Conversation) []float64 {
	ks := s.planKeys(c)
	out := make([]float64, len(c.Sessions))
	for i := range c.Sessions {
		out[i] = s.facts(mapCache{}, ks.session[i], &c.Sessions[i], []string{c.SpeakerA, c.SpeakerB}).density
	}
	return out
}
