package preserve

import (
	"context"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/baseline"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/embed"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mention"
)

// offlineStrategies builds the five gisting conditions the way the CLI
// does, with the offline engines.
func offlineStrategies() []swc.Strategy {
	g := gist.NewExtractive()
	g.Temporal = mention.HasTemporal
	e := embed.New()
	salient := func(text string, speakers []string) int {
		return len(mention.Entities(text, speakers)) + len(mention.Numbers(text))
	}
	anchored := consolidate.New("swc-anchored", e, g, swc.GistTemporal, salient)
	anchored.Anchor = mention.Anchor
	return []swc.Strategy{
		consolidate.New("swc-full", e, g, swc.GistFull, salient),
		consolidate.New("swc-temporal", e, g, swc.GistTemporal, salient),
		anchored,
		baseline.NewSliding("sliding", g, swc.GistSummary),
		baseline.NewSliding("sliding-temporal", g, swc.GistSummaryTemporal),
		baseline.Full{},
	}
}

func compressAll(tb testing.TB, convs []*swc.Conversation) map[string]map[string]*swc.Context {
	tb.Helper()
	out := map[string]map[string]*swc.Context{}
	for _, s := range offlineStrategies() {
		out[s.Name()] = map[string]*swc.Context{}
		for _, c := range convs {
			budget := 4000
			if s.Name() == "full" {
				budget = 0
			}
			ctx, err := s.Compress(context.Background(), c, swc.CompressOptions{Budget: budget})
			if err != nil {
				tb.Fatalf("%s on %s: %v", s.Name(), c.ID, err)
			}
			out[s.Name()][c.ID] = ctx
		}
	}
	return out
}

// checkOffline checks the properties the issue asks of the extractive
// gister's report.
func checkOffline(t *testing.T, r *Report) {
	t.Helper()
	if got, want := len(r.Conditions), len(Conditions); got != want {
		t.Errorf("conditions = %v, want %v (full makes no gists)", r.Conditions, Conditions)
	}
	full, temp := r.Counts(Temporal, "swc-full"), r.Counts(Temporal, "swc-temporal")
	if full.Found == 0 {
		t.Fatal("swc-full audited no temporal mentions")
	}
	if temp.Rate <= full.Rate {
		t.Errorf("temporal rate: swc-temporal %.4f <= swc-full %.4f", temp.Rate, full.Rate)
	}
	if *temp.ValueRate < temp.Rate || *full.ValueRate < full.Rate {
		t.Errorf("value rate below verbatim rate: %+v %+v", temp, full)
	}
	// swc-full and swc-temporal gist the same chunks (same salience);
	// sliding and sliding-temporal summarise the same history (the window
	// is chosen before the summary is written).
	for _, pair := range [][2]string{{"swc-full", "swc-temporal"}, {"sliding", "sliding-temporal"}} {
		for _, cr := range r.PerConversation {
			for _, typ := range Types {
				a, b := cr.Types[typ].Variants[pair[0]], cr.Types[typ].Variants[pair[1]]
				if a.Found != b.Found {
					t.Errorf("%s %s: found %s %d != %s %d", cr.Conversation, typ, pair[0], a.Found, pair[1], b.Found)
				}
			}
		}
	}
	if r.Coverage["swc-full"].Gists != r.Coverage["swc-temporal"].Gists {
		t.Errorf("gists: %+v vs %+v", r.Coverage["swc-full"], r.Coverage["swc-temporal"])
	}
	for _, v := range r.Conditions {
		if r.Coverage[v].MissingTurns != 0 {
			t.Errorf("%s: %d gist turns not found in the conversations", v, r.Coverage[v].MissingTurns)
		}
	}
	if !r.HasGists() {
		t.Error("HasGists = false")
	}
}

func TestAnalyzeSample(t *testing.T) {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	r := Analyze(convs, compressAll(t, convs))
	checkOffline(t, r)
	for _, v := range r.Conditions {
		if n := len(r.Examples[Entity][v]); n > DefaultExamples {
			t.Errorf("%s: %d entity examples", v, n)
		}
	}
	// Deterministic: a second run gives the same report.
	r2 := Analyze(convs, compressAll(t, convs))
	if a, b := r.Counts(Event, "sliding"), r2.Counts(Event, "sliding"); *a != *b {
		t.Errorf("not deterministic: %+v vs %+v", a, b)
	}
	if len(r.Examples[Temporal]["swc-full"]) > 0 && r.Examples[Temporal]["swc-full"][0] != r2.Examples[Temporal]["swc-full"][0] {
		t.Error("examples not deterministic")
	}
}

func TestAnalyzeNoGists(t *testing.T) {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	ctx := &swc.Context{Strategy: "full"}
	r := Analyze(convs, map[string]map[string]*swc.Context{"full": {convs[0].ID: ctx}})
	if r.HasGists() || len(r.Conditions) != 0 {
		t.Errorf("report of a context without gists: %+v", r)
	}
	if err := r.WriteText(discard{}); err != nil {
		t.Error(err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
