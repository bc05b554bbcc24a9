package consolidate

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/vector"
)

// signals computes the three salience signals of every session of c:
//
//   - downstream: the mean of the TopK largest cosines between the chunk's
//     embedding (the normalised mean of its unit turn vectors) and every
//     turn of the later sessions, clamped to [0, 1]; 0 for the last chunk.
//   - recency: session index ÷ number of sessions.
//   - density: (named entities + numbers) ÷ tokens, both counted in the
//     same text — what the speakers said, the turns' text as written (no
//     header, no speaker labels, no image captions, no anchors) — divided
//     by the conversation's largest such value.
//
// The embedder sees each turn's text and the caption of an image it
// shares. dens[i] is session i's density before that division (see
// SWC.facts).
func (s *SWC) signals(ctx context.Context, c *swc.Conversation, dens []float64) ([]swc.Signals, error) {
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
	sparse, chunkOf, err := s.turnVectors(ctx, texts, first)
	if err != nil {
		return nil, fmt.Errorf("embed the turns of %s: %w", c.ID, err)
	}
	k := s.Config.TopK
	if k <= 0 {
		k = 5
	}
	top := make([]float64, 0, k+1)
	for i := 0; i < n; i++ {
		chunk := chunkOf(i)
		top = top[:0]
		for j := first[i+1]; j < len(sparse); j++ { // every later turn
			sim := vector.SparseDot(sparse[j], chunk)
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
	// Density: (entities + numbers) per token of the same text, scaled
	// so that the densest session has 1.
	max := 0.0
	for _, d := range dens {
		if d > max {
			max = d
		}
	}
	for i := range out {
		if max > 0 {
			out[i].Density = dens[i] / max
		}
	}
	return out, nil
}

// turnVectors embeds texts (the turns of every session; session i's are
// texts[first[i]:first[i+1]]) and returns them as unit sparse vectors, and
// the function giving session i's chunk vector (the mean of
// its unit turn vectors, at unit length; valid until its next call). Cosine by Dot needs unit
// vectors: the lexical embedder's are, a remote server's need not be. A
// SparseEmbedder (the lexical one) never builds the dense forms; the
// numbers are the same either way.
func (s *SWC) turnVectors(ctx context.Context, texts []string, first []int) ([]swc.Sparse, func(int) []float32, error) {
	if se, ok := s.Embedder.(swc.SparseEmbedder); ok {
		vecs, err := se.EmbedSparse(ctx, texts)
		if err != nil {
			return nil, nil, err
		}
		if len(vecs) != len(texts) {
			return nil, nil, fmt.Errorf("consolidate: embedder %s returned %d vectors for %d texts", s.Embedder.Name(), len(vecs), len(texts))
		}
		sparse := make([]swc.Sparse, len(vecs))
		for i, v := range vecs {
			sparse[i] = vector.NormalizeSparse(v)
		}
		var m vector.Meaner
		return sparse, func(i int) []float32 { return m.Mean(sparse[first[i]:first[i+1]]) }, nil
	}
	vecs, err := s.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, nil, err
	}
	if len(vecs) != len(texts) {
		return nil, nil, fmt.Errorf("consolidate: embedder %s returned %d vectors for %d texts", s.Embedder.Name(), len(vecs), len(texts))
	}
	units := make([][]float32, len(vecs))
	sparse := make([]swc.Sparse, len(vecs)) // the same, for fast dot products
	for i, v := range vecs {
		units[i] = vector.Normalize(v)
		sparse[i] = vector.ToSparse(units[i])
	}
	return sparse, func(i int) []float32 { return vector.MeanNormalized(units[first[i]:first[i+1]]) }, nil
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
