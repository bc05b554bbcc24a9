package swc

import (
	"math"
	"slices"
)

// Dot returns the dot product of a and b over their common length. For the
// unit vectors Lexical returns it equals the cosine, at a third of the cost.
func Dot(a, b []float32) float64 {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0) + float64(s1) + float64(s2) + float64(s3)
}

// Cosine returns the cosine similarity of a and b. It returns 0 when the
// lengths differ or either vector is zero.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var ab, aa, bb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		ab += x * y
		aa += x * x
		bb += y * y
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// Normalize returns v scaled to unit length, as a new slice; a zero
// vector comes back as zeros. Embedders need not return unit vectors
// (remote ones often do not), and cosine by Dot needs them.
func Normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	inv := 1 / math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// MeanNormalized returns the embedding of a chunk made of several turns:
// each vector scaled to unit length (so that a turn's weight
// does not depend on its vector's length), their mean, scaled to unit
// length. Shorter vectors count as zero-padded to the longest. It returns
// nil for no vectors and a zero vector when the mean is zero (for example,
// all inputs empty).
func MeanNormalized(vecs [][]float32) []float32 {
	n := 0
	for _, v := range vecs {
		n = max(n, len(v))
	}
	if len(vecs) == 0 {
		return nil
	}
	sum := make([]float64, n)
	for _, v := range vecs {
		var vn float64
		for _, x := range v {
			vn += float64(x) * float64(x)
		}
		if vn == 0 {
			continue
		}
		inv := 1 / math.Sqrt(vn)
		for i, x := range v {
			sum[i] += float64(x) * inv
		}
	}
	out := make([]float32, n)
	var norm float64
	for _, x := range sum {
		norm += x * x
	}
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range sum {
		out[i] = float32(x / norm)
	}
	return out
}

// Sparse holds the non-zero entries of a vector: a lexical vector has a
// few dozen among thousands of dimensions, and Dot over them is that much
// cheaper than over the dense form.
type Sparse struct {
	Index []int32
	Value []float32
}

// ToSparse returns the non-zero entries of v.
func ToSparse(v []float32) Sparse {
	var s Sparse
	for i, x := range v {
		if x != 0 {
			s.Index = append(s.Index, int32(i))
			s.Value = append(s.Value, x)
		}
	}
	return s
}

// Dot returns the dot product of s and dense, entries of s beyond dense's
// length counting as zero: Dot(s's dense form, dense) in float64.
func (s Sparse) Dot(dense []float32) float64 {
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
func NormalizeSparse(s Sparse) Sparse {
	var n float64
	for _, x := range s.Value {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return Sparse{}
	}
	inv := 1 / math.Sqrt(n)
	out := Sparse{Index: s.Index, Value: make([]float32, len(s.Value))}
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

func dropZeros(s Sparse) Sparse {
	var out Sparse
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
// Sparse.Dot reads as such). It returns nil for no vectors.
func MeanNormalizedSparse(vecs []Sparse) []float32 {
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
func (m *Meaner) Mean(vecs []Sparse) []float32 {
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
