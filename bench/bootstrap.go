package bench

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/swcmem/swc"
)

// DefaultResamples is the number of bootstrap resamples used when a caller
// passes resamples <= 0 (the protocol uses 2,000).
const DefaultResamples = 2000

// Estimate is a mean with its 95% percentile-bootstrap confidence interval.
// Lo <= Mean <= Hi always holds. For N = 0 all three are 0.
type Estimate struct {
	Mean float64 `json:"mean"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	N    int     `json:"n"`
}

// Bootstrap returns the mean of xs and its 95% percentile bootstrap
// interval from resamples resamples (DefaultResamples when <= 0).
//
// The procedure, deterministic for a seed: the generator is PCG from
// math/rand/v2, seeded (seed, seed), rand.New(rand.NewPCG(seed, seed));
// each resample draws len(xs) indices with replacement with IntN(len(xs))
// and takes the mean of those values; the B resample means are sorted and
// Lo and Hi are their 2.5th and 97.5th percentiles with linear
// interpolation between order statistics (numpy.percentile's default:
// position p/100·(B−1) of the sorted means, counted from 0). Only a
// floating-point rounding miss (under 1e-9) of the mean is absorbed into
// the interval; a real one is reported as it is. With one value,
// Lo = Hi = Mean.
func Bootstrap(xs []float64, resamples int, seed uint64) Estimate {
	n := len(xs)
	if n == 0 {
		return Estimate{}
	}
	mean := meanOf(xs)
	if n == 1 {
		return Estimate{Mean: mean, Lo: mean, Hi: mean, N: 1}
	}
	if resamples <= 0 {
		resamples = DefaultResamples
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	means := make([]float64, resamples)
	for b := range means {
		sum := 0.0
		for range n {
			sum += xs[rng.IntN(n)]
		}
		means[b] = sum / float64(n)
	}
	slices.Sort(means)
	lo, hi := percentile(means, 2.5), percentile(means, 97.5)
	const eps = 1e-9
	if lo > mean && lo-mean < eps {
		lo = mean
	}
	if hi < mean && mean-hi < eps {
		hi = mean
	}
	return Estimate{Mean: mean, Lo: lo, Hi: hi, N: n}
}

// PairedBootstrap returns the mean difference mean(a) − mean(b) of two
// conditions scored on the same questions (a[i] and b[i] belong to
// question i) and its 95% paired percentile bootstrap interval: each
// resample draws question indices with replacement and uses the same
// indices for both conditions, which is Bootstrap of the per-question
// differences a[i] − b[i] with the same seed and resamples. It returns an
// EINVALID error when a and b differ in length.
func PairedBootstrap(a, b []float64, resamples int, seed uint64) (Estimate, error) {
	if len(a) != len(b) {
		return Estimate{}, swc.Errorf(swc.EINVALID, "bench: paired bootstrap: %d and %d scores", len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return Bootstrap(d, resamples, seed), nil
}

func meanOf(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// percentile returns the p-th percentile (0–100) of sorted values with
// linear interpolation, like numpy.percentile's default method.
func percentile(sorted []float64, p float64) float64 {
	h := p / 100 * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}
