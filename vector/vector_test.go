package vector

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/swcmem/swc"
)

func TestCosine(t *testing.T) {
	tests := []struct {
		name string
		a, b []float32
		want float64
	}{
		{"same", []float32{1, 2, 3}, []float32{1, 2, 3}, 1},
		{"scaled", []float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{"orthogonal", []float32{1, 0}, []float32{0, 1}, 0},
		{"opposite", []float32{1, 1}, []float32{-1, -1}, -1},
		{"45 degrees", []float32{1, 0}, []float32{1, 1}, 1 / math.Sqrt2},
		{"zero", []float32{0, 0}, []float32{1, 1}, 0},
		{"length mismatch", []float32{1}, []float32{1, 1}, 0},
		{"empty", nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cosine(tt.a, tt.b); math.Abs(got-tt.want) > 1e-6 {
				t.Errorf("Cosine = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDot(t *testing.T) {
	a := []float32{1, 2, 3, 4, 5, 6, 7}
	b := []float32{7, 6, 5, 4, 3, 2, 1}
	if got, want := Dot(a, b), 84.0; got != want {
		t.Errorf("Dot = %v, want %v", got, want)
	}
}

func TestMeanNormalized(t *testing.T) {
	got := MeanNormalized([][]float32{{1, 0, 0}, {0, 1}, {1, 1, 0}})
	// Sum (2, 2, 0) -> unit (1/√2, 1/√2, 0).
	want := []float32{float32(1 / math.Sqrt2), float32(1 / math.Sqrt2), 0}
	if len(got) != len(want) {
		t.Fatalf("len = %d, want %d", len(got), len(want))
	}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Errorf("got[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if MeanNormalized(nil) != nil {
		t.Error("MeanNormalized(nil) is not nil")
	}
	z := MeanNormalized([][]float32{{0, 0}, {0, 0}})
	if len(z) != 2 || z[0] != 0 || z[1] != 0 {
		t.Errorf("zero mean = %v, want [0 0]", z)
	}
}

// TestMeanNormalizedUnitTurns: each vector counts at unit length, so a
// long vector does not outweigh a short one: (10, 0) and (0, 1) average
// to (1, 1)/√2, not (10, 1)/√101.
func TestMeanNormalizedUnitTurns(t *testing.T) {
	got := MeanNormalized([][]float32{{10, 0}, {0, 1}})
	r := float32(1 / math.Sqrt2)
	if len(got) != 2 || math.Abs(float64(got[0]-r)) > 1e-6 || math.Abs(float64(got[1]-r)) > 1e-6 {
		t.Errorf("MeanNormalized = %v, want [%v %v]", got, r, r)
	}
}

func TestNormalize(t *testing.T) {
	v := []float32{3, 4}
	got := Normalize(v)
	if math.Abs(float64(got[0])-0.6) > 1e-6 || math.Abs(float64(got[1])-0.8) > 1e-6 || v[0] != 3 {
		t.Errorf("Normalize(3,4) = %v (input now %v)", got, v)
	}
	if z := Normalize([]float32{0, 0}); len(z) != 2 || z[0] != 0 || z[1] != 0 {
		t.Errorf("Normalize(0,0) = %v", z)
	}
}

func TestSparseDot(t *testing.T) {
	v := []float32{0, 2, 0, 0, -1, 0, 3}
	s := ToSparse(v)
	if len(s.Index) != 3 {
		t.Fatalf("ToSparse = %+v", s)
	}
	dense := []float32{5, 1, 7, 7, 2, 9}
	// 2·1 + (−1)·2; the entry at 6 is beyond dense: zero.
	if got := SparseDot(s, dense); got != 0 {
		t.Errorf("SparseDot = %v, want 0", got)
	}
	if got, want := SparseDot(s, v), Dot(v, v); got != want {
		t.Errorf("SparseDot with itself = %v, want %v", got, want)
	}
}

// TestSparseMeanAndNormalize: NormalizeSparse and Meaner.Mean (used again
// and again, as signals use it) give MeanNormalized's and Normalize's very
// values on random sparse vectors, zeros and empty ones included.
func TestSparseMeanAndNormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var m Meaner
	for trial := range 300 {
		dim := 1 + rng.IntN(60)
		k := rng.IntN(6)
		dense := make([][]float32, k)
		sparse := make([]swc.Sparse, k)
		for j := range k {
			v := make([]float32, dim)
			for i := range v {
				if rng.IntN(4) == 0 {
					v[i] = rng.Float32()*2 - 1
				}
			}
			dense[j] = Normalize(v)
			sparse[j] = NormalizeSparse(ToSparse(v))
			if want := ToSparse(dense[j]); !slices.Equal(want.Index, sparse[j].Index) || !slices.Equal(want.Value, sparse[j].Value) {
				t.Fatalf("trial %d: NormalizeSparse %v, Normalize %v", trial, sparse[j], want)
			}
		}
		got := m.Mean(sparse)
		want := MeanNormalized(dense)
		if k == 0 {
			if got != nil || want != nil {
				t.Fatalf("no vectors: %v, %v", got, want)
			}
			continue
		}
		// got may be shorter: its tail would be zeros.
		for i, x := range want {
			g := float32(0)
			if i < len(got) {
				g = got[i]
			}
			if g != x {
				t.Fatalf("trial %d, index %d: Mean %v, MeanNormalized %v", trial, i, g, x)
			}
		}
		if len(got) > len(want) {
			t.Fatalf("trial %d: Mean is longer (%d) than the dense form (%d)", trial, len(got), len(want))
		}
		if c := MeanNormalizedSparse(sparse); !slices.Equal(c, got) {
			t.Fatalf("trial %d: MeanNormalizedSparse %v, Meaner %v", trial, c, got)
		}
	}
}
