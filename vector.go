package swc

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

// MeanNormalized returns the mean of vecs scaled to unit length: the
// embedding of a chunk made of several turns (SPEC §2.2). Shorter vectors
// count as zero-padded to the longest. It returns nil for no vectors and a
// zero vector when the mean is zero (for example, all inputs empty).
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
		for i, x := range v {
			sum[i] += float64(x)
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
