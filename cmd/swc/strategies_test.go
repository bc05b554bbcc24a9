package main

import (
	"context"
	"flag"
	"fmt"
	goldenfile "github.com/swcmem/swc/internal/golden"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mention"
	"github.com/swcmem/swc/strategy"
	"github.com/swcmem/swc/tokens"
)

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name+".golden"), []byte(got))
}

// offlineEngines returns the engines of the default flags, changed by mutate.
func offlineEngines(t testing.TB, mutate func(*engineFlags)) *engines {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := addEngineFlags(fs)
	if err := fs.Parse([]string{"--no-cache"}); err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(f)
	}
	e, err := openEngines(context.Background(), &Env{Vars: map[string]string{}}, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestStrategiesGolden renders every strategy on the sample conversation.
func TestStrategiesGolden(t *testing.T) {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	e := offlineEngines(t, nil)
	for _, name := range strategy.Names(strategy.All) {
		t.Run(name, func(t *testing.T) {
			s, err := e.strategy(name)
			if err != nil {
				t.Fatal(err)
			}
			x, err := s.Compress(context.Background(), convs[0], swc.CompressOptions{Budget: 4000})
			if err != nil {
				t.Fatal(err)
			}
			if name != "full" && x.Tokens > 4000 {
				t.Errorf("%d tokens over the budget", x.Tokens)
			}
			golden(t, filepath.Join("compress", name), x.Text)
		})
	}
}

// TestBudgetPropertyLoCoMo checks, on every LoCoMo conversation and every
// budgeted strategy, random budgets (1,000–8,000) and random weights: the
// context never exceeds the budget and the pinned sessions are present
// unless they alone exceed it.
func TestBudgetPropertyLoCoMo(t *testing.T) {
	path := locomotest.Wide(t)
	convs, _, err := locomo.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(42, 7))
	trials := 3
	for trial := range trials {
		w := [3]float64{rng.Float64(), rng.Float64(), rng.Float64()}
		e := offlineEngines(t, func(f *engineFlags) {
			f.weights = fmtWeights(w)
			if trial%2 == 1 {
				f.calibration = string(consolidate.MinMax)
			}
		})
		for _, name := range strategy.Names(strategy.All)[1:] {
			s, err := e.strategy(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range convs {
				budget := 1000 + rng.IntN(7001)
				x, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: budget})
				if err != nil {
					t.Fatal(err)
				}
				if got := tokens.Count(x.Text); got > budget || got != x.Tokens {
					t.Errorf("%s %s budget %d: %d tokens (reported %d)", name, c.ID, budget, got, x.Tokens)
				}
				if name == "swc-full" || name == "swc-temporal" || name == "swc-anchored" {
					checkPins(t, name, c, x, budget)
				}
			}
		}
	}
}

func checkPins(t *testing.T, name string, c *swc.Conversation, x *swc.Context, budget int) {
	t.Helper()
	n := len(c.Sessions)
	pinned := []int{0, n - 2, n - 1}
	alone := 0
	for _, i := range pinned {
		alone += tokens.Count(swc.RenderBlock(swc.Block{Session: &c.Sessions[i], Turns: c.Sessions[i].Turns}))
	}
	if alone+10 > budget {
		return // the pins alone (about) exceed it: they may be cut
	}
	for _, i := range pinned {
		if a := x.Chunks[i].Action; a != swc.ActionVerbatim {
			t.Errorf("%s %s budget %d: pinned session %d is %s", name, c.ID, budget, i, a)
		}
	}
}

func fmtWeights(w [3]float64) string {
	return fmt.Sprintf("%g,%g,%g", w[0], w[1], w[2])
}

// BenchmarkCompressAll compresses all 10 LoCoMo conversations under every
// strategy with the offline engines, fresh for each iteration (nothing
// carries over between iterations but the process-wide token and sentence
// score memos). "shared" is the CLI's wiring: one embedding, gist, entity
// count, temporal check and anchoring per text for the whole run;
// "unshared" gives each strategy the bare engines.
func BenchmarkCompressAll(b *testing.B) {
	path := needLoCoMo(b)
	convs, _, err := locomo.LoadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, shared := range []bool{true, false} {
		name := "shared"
		if !shared {
			name = "unshared"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				e := offlineEngines(b, nil)
				if !shared {
					g := e.gister.(*memo.Gister).Gister.(*gist.Extractive)
					g.Temporal = mention.HasTemporal
					e.gister, e.embedder = g, e.embedder.(*memo.Embedder).Embedder
					e.salient, e.temporal, e.anchor = strategy.Salient, mention.HasTemporal, mention.Anchor
				}
				strategies, err := e.strategies("")
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range strategies {
					for _, c := range convs {
						if _, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: 4000}); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		})
	}
}
