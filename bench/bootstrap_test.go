package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/swcmem/swc"
)

func bernoulli(n int, p float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	xs := make([]float64, n)
	for i := range xs {
		if r.Float64() < p {
			xs[i] = 1
		}
	}
	return xs
}

func TestBootstrapDeterministic(t *testing.T) {
	xs := bernoulli(300, 0.4, 1)
	a, b := Bootstrap(xs, 2000, 42), Bootstrap(xs, 2000, 42)
	if a != b {
		t.Fatalf("same seed, different estimates: %+v vs %+v", a, b)
	}
	if c := Bootstrap(xs, 0, 42); c != a {
		t.Errorf("resamples 0 should mean %d: %+v vs %+v", DefaultResamples, c, a)
	}
	if c := Bootstrap(xs, 2000, 43); c.Lo == a.Lo && c.Hi == a.Hi {
		t.Errorf("seeds 42 and 43 gave the same interval %+v", a)
	}
	if a.N != 300 || !(a.Lo < a.Mean && a.Mean < a.Hi) {
		t.Errorf("estimate %+v", a)
	}
}

func TestBootstrapWidth(t *testing.T) {
	// A proportion near 0.5 with n = 400 has a 95% interval about
	// ±1.96·sqrt(0.25/400) = ±0.049 wide.
	xs := bernoulli(400, 0.5, 3)
	e := Bootstrap(xs, 2000, 42)
	if w := e.Hi - e.Lo; w < 0.08 || w > 0.12 {
		t.Errorf("interval %+v has width %.3f, want about 0.098", e, w)
	}
}

func TestBootstrapCoverage(t *testing.T) {
	// Of 200 samples of 100 draws from Bernoulli(0.3), about 95% of the
	// intervals should contain 0.3 (percentile intervals undercover a
	// little at this size).
	covered := 0
	const trials = 200
	for i := range trials {
		e := Bootstrap(bernoulli(100, 0.3, uint64(100+i)), 1000, uint64(i))
		if e.Lo <= 0.3 && 0.3 <= e.Hi {
			covered++
		}
	}
	if rate := float64(covered) / trials; rate < 0.88 || rate > 0.995 {
		t.Errorf("coverage %.3f, want about 0.95", rate)
	}
}

func TestBootstrapEdgeCases(t *testing.T) {
	if e := Bootstrap(nil, 2000, 42); e != (Estimate{}) {
		t.Errorf("empty: %+v", e)
	}
	if e := Bootstrap([]float64{0.7}, 2000, 42); e != (Estimate{Mean: 0.7, Lo: 0.7, Hi: 0.7, N: 1}) {
		t.Errorf("one value: %+v", e)
	}
	if e := Bootstrap([]float64{1, 1, 1}, 50, 1); e.Mean != 1 || e.Lo != 1 || e.Hi != 1 {
		t.Errorf("constant: %+v", e)
	}
	// The mean is inside the interval even for tiny, lopsided samples and
	// for values whose means round.
	for n := 2; n <= 12; n++ {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, uint64(n)))
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = math.Pow(r.Float64(), 8) * 0.1
			}
			e := Bootstrap(xs, 20, seed)
			if !(e.Lo <= e.Mean && e.Mean <= e.Hi) {
				t.Fatalf("n=%d seed=%d: %+v", n, seed, e)
			}
		}
	}
}

func TestPercentile(t *testing.T) {
	tests := []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 2.5, 1.075}, // numpy.percentile([1,2,3,4], 2.5)
		{[]float64{1, 2, 3, 4}, 97.5, 3.925},
		{[]float64{1, 2, 3, 4}, 50, 2.5},
		{[]float64{5}, 97.5, 5},
		{[]float64{0, 10}, 100, 10},
	}
	for _, tt := range tests {
		if got := percentile(tt.xs, tt.p); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("percentile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
		}
	}
}

func TestPairedBootstrap(t *testing.T) {
	if _, err := PairedBootstrap([]float64{1}, []float64{1, 0}, 100, 1); swc.ErrorCode(err) != swc.EINVALID {
		t.Errorf("length mismatch: err = %v, want EINVALID", err)
	}
	// b is a minus a constant on every question: the paired difference
	// never varies.
	a := bernoulli(200, 0.5, 5)
	b := make([]float64, len(a))
	for i := range a {
		b[i] = a[i] - 0.25
	}
	e, err := PairedBootstrap(a, b, 2000, 42)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.Mean-0.25) > 1e-12 || math.Abs(e.Lo-0.25) > 1e-12 || math.Abs(e.Hi-0.25) > 1e-12 || e.N != 200 {
		t.Errorf("constant difference: %+v", e)
	}
	// Two conditions that agree on 90% of the questions: the paired
	// interval (about ±1.96·sqrt(0.1/200) = ±0.044) is narrower than one
	// condition's own (about ±0.069), let alone an unpaired difference's.
	c := append([]float64(nil), a...)
	for i := 0; i < len(c); i += 10 {
		c[i] = 1 - c[i]
	}
	d, err := PairedBootstrap(c, a, 2000, 42)
	if err != nil {
		t.Fatal(err)
	}
	own := Bootstrap(a, 2000, 42)
	if d.Hi-d.Lo >= 0.75*(own.Hi-own.Lo) {
		t.Errorf("paired interval %+v not narrower than 3/4 of %+v", d, own)
	}
	if !(d.Lo <= d.Mean && d.Mean <= d.Hi) {
		t.Errorf("paired interval %+v excludes its mean", d)
	}
	if again, _ := PairedBootstrap(c, a, 2000, 42); again != d {
		t.Errorf("paired bootstrap not deterministic")
	}
}

func BenchmarkBootstrap(b *testing.B) {
	for _, n := range []int{100, 1501, 15000} {
		xs := bernoulli(n, 0.4, 1)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				Bootstrap(xs, DefaultResamples, 42)
			}
		})
	}
}
