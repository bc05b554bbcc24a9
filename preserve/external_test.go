package preserve

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/mention"
)

func loadFixture(t testing.TB) ([]*swc.Conversation, []ExternalGist) {
	t.Helper()
	convs, _, err := locomo.LoadFile(filepath.Join("testdata", "conversations.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", "gists.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ReadExternal(f, "gists.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return convs, recs
}

// TestFixtureMentions pins what the mention package finds in the fixture,
// which the arithmetic below relies on: when mention changes, this test
// says which assumption broke.
func TestFixtureMentions(t *testing.T) {
	convs, _ := loadFixture(t)
	want := map[string][3]string{ // turn → temporal | entities | events
		"tiny-1/D1:1": {"yesterday=2023-05-07", "Lisbon", "went"},
		"tiny-1/D1:2": {"last Saturday=2023-05-06", "Carla", "ran race"},
		"tiny-1/D2:1": {"20 May 2023=2023-05-20", "Clara Porto", "visited"},
		"tiny-1/D2:2": {"three years=P3Y 2020=2020", "", "painting"},
		"tiny-2/D1:1": {"9pm=T21:00", "Dana", "met"},
	}
	for _, c := range convs {
		src := newConvSource(c)
		for _, s := range c.Sessions {
			for _, tu := range s.Turns {
				ms := src.annotate(src.turns[tu.ID])
				var got [3]string
				for k := range 3 {
					var parts []string
					for _, a := range ms[k] {
						p := a.m.Text
						if k == 0 {
							p += "=" + a.m.Value
						}
						parts = append(parts, p)
					}
					got[k] = strings.Join(parts, " ")
				}
				key := c.ID + "/" + tu.ID
				if got != want[key] {
					t.Errorf("%s: mentions %q, want %q", key, got, want[key])
				}
			}
		}
	}
}

func TestFromExternalArithmetic(t *testing.T) {
	convs, recs := loadFixture(t)
	r, err := FromExternal(convs, recs)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Conditions, ","); got != "generic,temporal,summary" {
		t.Errorf("conditions = %s", got)
	}
	// Worked by hand from testdata/gists.jsonl; v = value-preserved.
	type row struct{ found, preserved, v int }
	want := map[string]map[string]row{
		Temporal: {"generic": {6, 0, 0}, "temporal": {5, 3, 5}, "summary": {5, 1, 2}},
		Entity:   {"generic": {5, 5, 0}, "temporal": {4, 3, 0}, "summary": {4, 3, 0}},
		Event:    {"generic": {6, 5, 0}, "temporal": {5, 4, 0}, "summary": {5, 4, 0}},
	}
	for typ, byVar := range want {
		for v, w := range byVar {
			c := r.Counts(typ, v)
			if c == nil {
				t.Fatalf("%s/%s missing", typ, v)
			}
			if c.Found != w.found || c.Preserved != w.preserved || !near(c.Rate, float64(w.preserved)/float64(w.found)) {
				t.Errorf("%s/%s = %d/%d %.4f, want %d/%d", typ, v, c.Preserved, c.Found, c.Rate, w.preserved, w.found)
			}
			if typ != Temporal {
				if c.ValueRate != nil || c.ValuePreserved != nil || c.Resolved != nil {
					t.Errorf("%s/%s has value fields", typ, v)
				}
				continue
			}
			if c.ValueRate == nil || *c.ValuePreserved != w.v || *c.Resolved != w.found || !near(*c.ValueRate, float64(w.v)/float64(w.found)) {
				t.Errorf("%s/%s value = %v/%d, resolved %v, want %d (all resolved)", typ, v, c.ValuePreserved, c.Found, c.Resolved, w.v)
			}
		}
	}
	// Per conversation: tiny-2 has only a generic gist.
	if len(r.PerConversation) != 2 || r.PerConversation[1].Conversation != "tiny-2" {
		t.Fatalf("per_conversation = %+v", r.PerConversation)
	}
	t2 := r.PerConversation[1].Types
	if c := t2[Temporal].Variants["generic"]; c.Found != 1 || c.Preserved != 0 {
		t.Errorf("tiny-2 temporal generic = %+v", c)
	}
	if c := t2[Entity].Variants["generic"]; c.Found != 1 || c.Preserved != 1 {
		t.Errorf("tiny-2 entity generic = %+v", c)
	}
	if c := t2[Event].Variants["temporal"]; c.Found != 0 || c.Rate != 0 {
		t.Errorf("tiny-2 event temporal = %+v", c)
	}
	t1 := r.PerConversation[0].Types
	if c := t1[Temporal].Variants["generic"]; c.Found != 5 {
		t.Errorf("tiny-1 temporal generic found = %d, want 5", c.Found)
	}
	// Ratios: no known pair, so every variant against the first.
	for _, tt := range []struct {
		typ, v string
		rate   float64 // NaN: undefined
		value  float64
	}{
		{Temporal, "temporal", math.NaN(), math.NaN()},
		{Entity, "temporal", 0.75, math.NaN()},
		{Event, "summary", 0.8 / (5.0 / 6), math.NaN()},
	} {
		ra := r.ratio(tt.typ, tt.v, "generic")
		if ra.Variant == "" {
			t.Errorf("no ratio %s %s/generic", tt.typ, tt.v)
			continue
		}
		if math.IsNaN(tt.rate) != (ra.Rate == nil) || ra.Rate != nil && !near(*ra.Rate, tt.rate) {
			t.Errorf("ratio %s %s/generic = %v, want %v", tt.typ, tt.v, ra.Rate, tt.rate)
		}
	}
	// Coverage.
	if c := r.Coverage["generic"]; c.Gists != 3 || c.Turns != 5 || c.Sessions != 3 || c.InContext != 3 {
		t.Errorf("coverage generic = %+v", c)
	}
	if c := r.Coverage["summary"]; c.Gists != 1 || c.Turns != 4 || c.Sessions != 2 {
		t.Errorf("coverage summary = %+v", c)
	}
	// Examples: the generic variant lost every temporal mention; the first
	// pick is the first lost, with its sentence and gist.
	ex := r.Examples[Temporal]["generic"]
	if len(ex) != 5 {
		t.Fatalf("generic temporal examples = %d, want 5", len(ex))
	}
	if e := ex[0]; e.Mention != "yesterday" || e.Turn != "D1:1" || e.Sentence != "I went to Lisbon yesterday." || e.Gist != "Ana went to Lisbon. Ben ran a race with Carla." || e.Speaker != "Ana" {
		t.Errorf("first example = %+v", e)
	}
	// The temporal variant kept every value: its examples are the two lost
	// verbatim, marked value-preserved.
	ex = r.Examples[Temporal]["temporal"]
	if len(ex) != 2 || !ex[0].ValuePreserved || ex[0].Mention != "last Saturday" || ex[1].Mention != "three years" {
		t.Errorf("temporal-variant examples = %+v", ex)
	}
	if ex := r.Examples[Entity]["temporal"]; len(ex) != 1 || ex[0].Mention != "Carla" {
		t.Errorf("entity examples = %+v", ex)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestReportJSONShape(t *testing.T) {
	convs, recs := loadFixture(t)
	r, err := FromExternal(convs, recs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Types map[string]struct {
			Variants map[string]map[string]any `json:"variants"`
		} `json:"types"`
		PerConversation []map[string]any            `json:"per_conversation"`
		Examples        map[string]map[string][]any `json:"examples"`
		Ratios          []map[string]any            `json:"ratios"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, typ := range Types {
		v := doc.Types[typ].Variants["temporal"]
		for _, k := range []string{"found", "preserved", "rate"} {
			if _, ok := v[k]; !ok {
				t.Errorf("types.%s.variants.temporal has no %q: %v", typ, k, v)
			}
		}
		if _, ok := v["value_rate"]; ok != (typ == Temporal) {
			t.Errorf("types.%s: value_rate present = %v", typ, ok)
		}
	}
	if len(doc.PerConversation) != 2 || len(doc.Examples[Temporal]["generic"]) != 5 || len(doc.Ratios) != 6 {
		t.Errorf("per_conversation %d, examples %d, ratios %d", len(doc.PerConversation), len(doc.Examples[Temporal]["generic"]), len(doc.Ratios))
	}
}

func TestExternalErrors(t *testing.T) {
	convs, _ := loadFixture(t)
	tests := []struct {
		name, jsonl, code, want string
	}{
		{"bad json", `{"conversation": "tiny-1",`, swc.EINVALID, "x.jsonl:1"},
		{"no variant", `{"conversation": "tiny-1", "session": 0, "gist": "g"}`, swc.EINVALID, `no "variant"`},
		{"no session", `{"conversation": "tiny-1", "variant": "v", "gist": "g"}`, swc.EINVALID, `no "session"`},
		{"no conversation", `{"session": 0, "variant": "v", "gist": "g"}`, swc.EINVALID, `no "conversation"`},
		{"empty", "\n\n", swc.EINVALID, "no gist records"},
		{"unknown conversation", `{"conversation": "nope", "session": 0, "variant": "v", "gist": "g"}`, swc.ENOTFOUND, `no conversation "nope"`},
		{"session range", `{"conversation": "tiny-1", "session": 2, "variant": "v", "gist": "g"}`, swc.EINVALID, "session 2 out of range (0–1)"},
		{"unknown turn", `{"conversation": "tiny-1", "turns": ["D9:9"], "variant": "v", "gist": "g"}`, swc.EINVALID, `no turn "D9:9"`},
		{"duplicate", "{\"conversation\": \"tiny-1\", \"session\": 0, \"variant\": \"v\", \"gist\": \"a\"}\n{\"conversation\": \"0\", \"session\": 0, \"variant\": \"v\", \"gist\": \"b\"}", swc.EINVALID, "second gist"},
	}
	for _, tt := range tests {
		recs, err := ReadExternal(strings.NewReader(tt.jsonl), "x.jsonl")
		if err == nil {
			_, err = FromExternal(convs, recs)
		}
		if err == nil || swc.ErrorCode(err) != tt.code || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %s containing %q", tt.name, err, tt.code, tt.want)
		}
	}
}

func TestExternalTurns(t *testing.T) {
	convs, _ := loadFixture(t)
	recs, err := ReadExternal(strings.NewReader(`{"conversation": "tiny-1", "turns": ["D2:1"], "variant": "v", "gist": "Clara went to Porto on 20 May 2023."}`), "x")
	if err != nil {
		t.Fatal(err)
	}
	r, err := FromExternal(convs, recs)
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Counts(Entity, "v"); c.Found != 2 || c.Preserved != 2 {
		t.Errorf("entity = %+v", c)
	}
	if c := r.Counts(Temporal, "v"); c.Found != 1 || c.Preserved != 1 {
		t.Errorf("temporal = %+v", c)
	}
	if cov := r.Coverage["v"]; cov.Sessions != 1 || cov.Turns != 1 {
		t.Errorf("coverage = %+v", cov)
	}
}

// TestValueFromGistMention checks value preservation through the gist's
// own temporal mentions, resolved against the source turn's session.
func TestValueFromGistMention(t *testing.T) {
	convs, _ := loadFixture(t)
	// "the day before 8 May 2023" resolves to 2023-05-07 = "yesterday" of
	// D1:1, without writing the date out.
	gist := "Ana went to Lisbon the day before 8 May 2023."
	ms := mention.Temporal(gist, convs[0].Sessions[0].Start)
	if len(ms) != 1 || ms[0].Value != "2023-05-07" {
		t.Fatalf("fixture assumption: mention resolves %q to %+v, want one mention 2023-05-07", gist, ms)
	}
	recs := []ExternalGist{{Conversation: "tiny-1", Turns: []string{"D1:1"}, Variant: "v", Gist: gist}}
	r, err := FromExternal(convs, recs)
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Counts(Temporal, "v"); c.Preserved != 0 || *c.ValuePreserved != 1 {
		t.Errorf("temporal = %d verbatim, %d value; want 0, 1", c.Preserved, *c.ValuePreserved)
	}
}
