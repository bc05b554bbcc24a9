package strategy

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/embed"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/locomo"
)

func offline() Engines {
	return Engines{Embedder: embed.New(), Gister: gist.NewExtractive()}
}

// TestRegistry: every entry builds a strategy of its name that compresses
// the sample within the budget (full excepted), question-aware exactly
// when the strategy says so; the default is offered everywhere.
func TestRegistry(t *testing.T) {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, i := range List() {
		if seen[i.Name] || i.Doc == "" || strings.Contains(i.Doc, "\n") {
			t.Errorf("%q: a second entry, or no one-line doc", i.Name)
		}
		seen[i.Name] = true
		s, err := New(i.Name, offline())
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() != i.Name {
			t.Errorf("%s builds %s", i.Name, s.Name())
		}
		qa, ok := s.(swc.QueryAware)
		if i.QueryAware != (ok && qa.QueryAware()) {
			t.Errorf("%s: registry says question-aware %v, the strategy %v", i.Name, i.QueryAware, ok && qa.QueryAware())
		}
		if i.QueryAware && i.Compressor {
			t.Errorf("%s: a question-aware strategy offered to the Compressor", i.Name)
		}
		out, err := s.Compress(context.Background(), convs[0], swc.CompressOptions{Budget: 1500, Query: "When did Caroline go to the LGBTQ support group?"})
		if err != nil {
			t.Fatalf("%s: %v", i.Name, err)
		}
		if i.Name != "full" && out.Tokens > 1500 {
			t.Errorf("%s: %d tokens over 1500", i.Name, out.Tokens)
		}
	}
	d, err := Find(Default, ForCompressor)
	if err != nil || !d.Service {
		t.Errorf("the default %s is not offered by the Compressor and the service: %+v, %v", Default, d, err)
	}
	if got := Names(ForService); !slices.Equal(got, []string{"full", "truncation", "swc-full", "swc-temporal", "swc-anchored"}) {
		t.Errorf("service strategies %v", got)
	}
	if got := Names(ForCompressor); slices.Contains(got, "full") || slices.Contains(got, "swc-recall") || len(got) != 7 {
		t.Errorf("Compressor strategies %v", got)
	}
}

func TestFindUnknown(t *testing.T) {
	_, err := New("swc-nope", offline())
	if swc.ErrorCode(err) != swc.EINVALID || !strings.Contains(err.Error(), `unknown strategy "swc-nope" (want one of full, truncation,`) {
		t.Errorf("New: %v", err)
	}
	_, err = Find("swc-recall", ForService)
	if err == nil || !strings.Contains(err.Error(), "(want one of full, truncation, swc-full, swc-temporal, swc-anchored)") {
		t.Errorf("Find among the service's: %v", err)
	}
}

// TestEngines: SWC gets the engines' settings, the end schedule when none
// is given, and anchors only as swc-anchored.
func TestEngines(t *testing.T) {
	e := offline()
	e.Config = consolidate.DefaultConfig()
	e.Config.High = 0.9
	s, _ := New("swc-temporal", e)
	swcT := s.(*consolidate.SWC)
	if swcT.Config.High != 0.9 || swcT.Schedule.Kind != consolidate.End || swcT.Anchor != nil {
		t.Errorf("swc-temporal: %+v", swcT)
	}
	e.Schedule = consolidate.Schedule{Kind: consolidate.EveryK, K: 2}
	s, _ = New("swc-anchored", e)
	if a := s.(*consolidate.SWC); a.Schedule.Kind != consolidate.EveryK || a.Anchor == nil || a.Salient == nil {
		t.Errorf("swc-anchored: %+v", a)
	}
	s, _ = New("swc-full", offline())
	if f := s.(*consolidate.SWC); f.Config != consolidate.DefaultConfig() {
		t.Errorf("swc-full without a Config: %+v", f.Config)
	}
}
