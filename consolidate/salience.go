package consolidate

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/swcmem/swc"
)

// signals computes the three salience signals of every session of c
// (SPEC §2.2). texts[i][j] is the text of turn j of session i as the
// embedder should see it; tokens[i] is the session's rendered token count.
func (s *SWC) signals(ctx context.Context, c *swc.Conversation, tokens []int) ([]swc.Signals, error) {
	n := len(c.Sessions)
	out := make([]swc.Signals, n)
	if n == 0 {
		return out, nil
	}
	// One embedding call with every turn of the conversation.
	var texts []string
	first := make([]int, n+1) // first[i] = index in texts of session i's first turn
	for i, ses := range c.Sessions {
		first[i] = len(texts)
		for _, t := range ses.Turns {
			texts = append(texts, embedText(t))
		}
	}
	first[n] = len(texts)
	vecs, err := s.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed the turns of %s: %w", c.ID, err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("consolidate: embedder %s returned %d vectors for %d texts", s.Embedder.Name(), len(vecs), len(texts))
	}
	// Cosine needs unit vectors: the lexical embedder's are, a remote
	// server's need not be.
	sparse := make([]sparseVec, len(vecs))
	for i, v := range vecs {
		sparse[i] = toSparse(v)
		sparse[i].normalize()
	}
	k := s.Config.TopK
	if k <= 0 {
		k = 5
	}
	top := make([]float64, 0, k+1)
	for i := 0; i < n; i++ {
		chunk := swc.MeanNormalized(vecs[first[i]:first[i+1]])
		top = top[:0]
		for j := first[i+1]; j < len(vecs); j++ { // every later turn
			sim := sparse[j].dot(chunk)
			top = pushTop(top, sim, k)
		}
		if len(top) > 0 {
			sum := 0.0
			for _, v := range top {
				sum += v
			}
			out[i].Downstream = clamp01(sum / float64(len(top)))
		}
		out[i].Recency = float64(i) / float64(n)
	}
	// Density: (entities + numbers) per token, normalised by the maximum.
	dens := make([]float64, n)
	max := 0.0
	for i, ses := range c.Sessions {
		cnt := 0
		for _, t := range ses.Turns {
			cnt += s.Salient(t.Text, []string{c.SpeakerA, c.SpeakerB})
		}
		if tokens[i] > 0 {
			dens[i] = float64(cnt) / float64(tokens[i])
		}
		if dens[i] > max {
			max = dens[i]
		}
	}
	for i := range out {
		if max > 0 {
			out[i].Density = dens[i] / max
		}
	}
	return out, nil
}

// embedText is what the embedder sees of a turn: its words, and the caption
// of a shared image.
func embedText(t swc.Turn) string {
	if t.Image != nil && t.Image.Caption != "" {
		return t.Text + " " + t.Image.Caption
	}
	return t.Text
}

// score is the weighted salience of one chunk.
func (w Weights) score(sig swc.Signals) float64 {
	return w.Downstream*sig.Downstream + w.Recency*sig.Recency + w.Density*sig.Density
}

// sparseVec holds the non-zero entries of a vector.
type sparseVec struct {
	idx []int32
	val []float32
}

func toSparse(v []float32) sparseVec {
	var s sparseVec
	for i, x := range v {
		if x != 0 {
			s.idx = append(s.idx, int32(i))
			s.val = append(s.val, x)
		}
	}
	return s
}

// normalize scales s to unit length (a zero vector stays zero).
func (s *sparseVec) normalize() {
	var n float64
	for _, x := range s.val {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	inv := 1 / math.Sqrt(n)
	for i := range s.val {
		s.val[i] = float32(float64(s.val[i]) * inv)
	}
}

func (s sparseVec) dot(dense []float32) float64 {
	var sum float64
	for k, i := range s.idx {
		if int(i) < len(dense) {
			sum += float64(s.val[k]) * float64(dense[i])
		}
	}
	return sum
}

// pushTop keeps the k largest values of top (unordered beyond the set).
func pushTop(top []float64, v float64, k int) []float64 {
	if len(top) < k {
		return append(top, v)
	}
	minI := 0
	for i := range top {
		if top[i] < top[minI] {
			minI = i
		}
	}
	if v > top[minI] {
		top[minI] = v
	}
	return top
}

func clamp01(x float64) float64 {
	if x < 0 || math.IsNaN(x) {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

// rankOrder returns session indexes sorted by ascending score (ties: older
// first), the order in which the budget drops chunks.
func rankOrder(idx []int, scores []float64) []int {
	out := append([]int(nil), idx...)
	sort.SliceStable(out, func(a, b int) bool {
		if scores[out[a]] != scores[out[b]] {
			return scores[out[a]] < scores[out[b]]
		}
		return out[a] < out[b]
	})
	return out
}
