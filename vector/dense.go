// Package vector is the maths over embedding vectors: dot products and
// cosines, unit scaling, the normalised means that make a chunk's vector
// from its turns' vectors, in dense form and over the sparse form (swc.Sparse) a
// lexical embedder returns.
package vector

import "math"

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
