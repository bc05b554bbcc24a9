package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/embed"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mock"
	"github.com/swcmem/swc/sqlite"
	"github.com/swcmem/swc/strategy"
)

// TestWarmREMCache: a second run over the same cache file makes no gister
// calls, for every SWC condition and both sliding baselines, and the two
// gist variants never share entries.
func TestWarmREMCache(t *testing.T) {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cache.db")
	compressAll := func() (int64, map[string]string) {
		db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		fake := &mock.Gister{GistFn: func(_ context.Context, req swc.GistRequest) (string, error) {
			return string(req.Variant) + " gist of " + req.Date, nil
		}}
		g := gist.Cached(fake, db, gist.PromptHash)
		texts := map[string]string{}
		for _, v := range []swc.GistVariant{swc.GistFull, swc.GistTemporal} {
			s := consolidate.New("swc-"+string(v), embed.New(), g, v, strategy.Salient)
			for _, sched := range []string{"end", "every-3"} {
				s.Schedule, _ = consolidate.ParseSchedule(sched)
				x, err := s.Compress(context.Background(), convs[0], swc.CompressOptions{Budget: 2500})
				if err != nil {
					t.Fatal(err)
				}
				texts[s.Name()+sched] = x.Text
				for _, gr := range x.Gists {
					if !strings.HasPrefix(gr.Text, string(v)+" gist") {
						t.Errorf("%s got a %q gist: the variants share cache entries", v, gr.Text)
					}
				}
			}
		}
		return fake.Calls.Load(), texts
	}
	cold, first := compressAll()
	if cold == 0 {
		t.Fatal("the cold run made no gister calls")
	}
	warm, second := compressAll()
	if warm != 0 {
		t.Errorf("the warm run made %d gister calls", warm)
	}
	for k := range first {
		if first[k] != second[k] {
			t.Errorf("%s: the warm run's context differs", k)
		}
	}
}
