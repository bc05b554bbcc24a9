package vector

import (
	"math"
	"slices"

	"github.com/swcmem/swc"
)

// ToSparse returns the non-zero entries of v.
func ToSparse(v []float32) swc.Sparse {
	var s swc.Sparse
	for i, x := range v {
		if x != 0 {
			s.Index = append(s.Index, int32(i))
			s.Value = append(s.Value, x)
		}
	}
	return s
}

// SparseDot returns the dot product of s and dense, entries of s beyond
// dense's length counting as zero: Dot(s's dense form, dense) in float64.
func SparseDot(s swc.Sparse, dense []float32) float64 {
	var sum float64
	for k, i := range s.Index {
		if int(i) < len(dense) {
			sum += float64(s.Value[k]) * float64(dense[i])
		}
	}
	return sum
}

// NormalizeSparse is Normalize for a sparse vector: ToSparse(Normalize(v))
// for v the dense form of s, value for value (the zeros add nothing to the
// sums). A zero vector gives an empty one. s is not modified.
func NormalizeSparse(s swc.Sparse) swc.Sparse {
	var n float64
	for _, x := range s.Value {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return swc.Sparse{}
	}
	inv := 1 / math.Sqrt(n)
	out := swc.Sparse{Index: s.Index, Value: make([]float32, len(s.Value))}
	for i, x := range s.Value {
		out.Value[i] = float32(float64(x) * inv)
	}
	// Normalize keeps an entry that rounds to zero; ToSparse then drops it.
	for i := 0; i < len(out.Value); i++ {
		if out.Value[i] == 0 {
			return dropZeros(out)
		}
	}
	return out
}

func dropZeros(s swc.Sparse) swc.Sparse {
	var out swc.Sparse
	for i, x := range s.Value {
		if x != 0 {
			out.Index = append(out.Index, s.Index[i])
			out.Value = append(out.Value, x)
		}
	}
	return out
}

// MeanNormalizedSparse is MeanNormalized for sparse vectors: the same
// values, the result as long as the highest index used plus one rather
// than the longest dense form (the entries past it would be zeros, which
// SparseDot reads as such). It returns nil for no vectors.
func MeanNormalizedSparse(vecs []swc.Sparse) []float32 {
	if len(vecs) == 0 {
		return nil
	}
	var m Meaner
	return slices.Clone(m.Mean(vecs))
}

// Meaner computes MeanNormalizedSparse again and again without allocating
// a dense vector each time. The zero Meaner is ready; it is not safe for
// concurrent use.
type Meaner struct {
	sum     []float64
	out     []float32
	seen    []bool  // seen[i]: i is in touched
	touched []int32 // the indexes set in out by the last Mean
}

// Mean returns MeanNormalizedSparse(vecs) (nil for no vectors) in a slice
// that stays valid until the next call.
func (m *Meaner) Mean(vecs []swc.Sparse) []float32 {
	for _, i := range m.touched {
		m.out[i], m.seen[i] = 0, false
	}
	m.touched = m.touched[:0]
	if len(vecs) == 0 {
		return nil
	}
	n := 0
	for _, v := range vecs {
		if k := len(v.Index); k > 0 {
			n = max(n, int(v.Index[k-1])+1)
		}
	}
	if len(m.sum) < n {
		n2 := max(n, 2*len(m.sum))
		m.sum = make([]float64, n2)
		m.out = make([]float32, n2)
		m.seen = make([]bool, n2)
	}
	for _, v := range vecs {
		var vn float64
		for _, x := range v.Value {
			vn += float64(x) * float64(x)
		}
		if vn == 0 {
			continue
		}
		inv := 1 / math.Sqrt(vn)
		for k, i := range v.Index {
			m.sum[i] += float64(v.Value[k]) * inv
			if !m.seen[i] {
				m.seen[i] = true
				m.touched = append(m.touched, i)
			}
		}
	}
	// The norm adds the squares in index order, as MeanNormalized does
	// over the dense form (its zeros add nothing).
	slices.Sort(m.touched)
	var norm float64
	for _, i := range m.touched {
		norm += m.sum[i] * m.sum[i]
	}
	if norm != 0 {
		norm = math.Sqrt(norm)
		for _, i := range m.touched {
			m.out[i] = float32(m.sum[i] / norm)
		}
	}
	for _, i := range m.touched {
		m.sum[i] = 0
	}
	return m.out[:n]
}
