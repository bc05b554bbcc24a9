package vector

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/swcmem/swc"
)

// benchSparse returns n unit sparse vectors of k entries over dim
// dimensions, the lexical embedder's shape.
func benchSparse(n, k, dim int) []swc.Sparse {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]swc.Sparse, n)
	for i := range out {
		v := make([]float32, dim)
		for range k {
			v[rng.IntN(dim)] = rng.Float32()
		}
		out[i] = NormalizeSparse(ToSparse(v))
	}
	return out
}

// BenchmarkSignals is the downstream signal's vector work for a
// conversation of sessions of 20 turns: each session's chunk mean, and its
// dot product with every later turn.
func BenchmarkSignals(b *testing.B) {
	for _, sessions := range []int{5, 20} {
		vecs := benchSparse(20*sessions, 40, 4000)
		b.Run(fmt.Sprintf("sparse/sessions=%d", sessions), func(b *testing.B) {
			var m Meaner
			for b.Loop() {
				var sum float64
				for i := range sessions {
					chunk := m.Mean(vecs[20*i : 20*(i+1)])
					for _, v := range vecs[20*(i+1):] {
						sum += SparseDot(v, chunk)
					}
				}
				_ = sum
			}
		})
	}
	rng := rand.New(rand.NewPCG(3, 4))
	dense := make([][]float32, 100)
	for i := range dense {
		dense[i] = make([]float32, 1536)
		for j := range dense[i] {
			dense[i][j] = rng.Float32()*2 - 1
		}
	}
	b.Run("dense/dim=1536", func(b *testing.B) {
		for b.Loop() {
			var sum float64
			for i := 0; i < len(dense); i += 20 {
				chunk := MeanNormalized(dense[i : i+20])
				for _, v := range dense[i+20:] {
					sum += Dot(Normalize(v), chunk)
				}
			}
			_ = sum
		}
	})
}
