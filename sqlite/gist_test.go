package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/swcmem/swc"
)

func TestHash(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	} {
		if got := Hash(tc.in); got != tc.want {
			t.Errorf("Hash(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestGistRoundTrip(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	for _, tc := range []struct {
		name string
		key  GistKey
		text string
	}{
		{"plain", GistKey{"full", "extractive", Hash("p"), Hash("c1")}, "Alice moved to Paris."},
		{"temporal", GistKey{"temporal", "extractive", Hash("p"), Hash("c1")}, "On 7 May Alice moved."},
		{"other model", GistKey{"full", "anthropic:claude-haiku-4-5-20251001", Hash("p"), Hash("c1")}, "haiku gist"},
		{"other prompt", GistKey{"full", "extractive", Hash("p2"), Hash("c1")}, "prompt two"},
		{"unicode and empty gist", GistKey{"full", "x", "", "ü"}, ""},
		{"multiline", GistKey{"full", "x", "p", "c2"}, "line one\nline 'two' \"quoted\"\x00nul"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok, err := db.Gist(ctx, tc.key); err != nil || ok {
				t.Fatalf("before put: ok=%v err=%v, want miss", ok, err)
			}
			if err := db.PutGist(ctx, tc.key, tc.text); err != nil {
				t.Fatal(err)
			}
			got, ok, err := db.Gist(ctx, tc.key)
			if err != nil || !ok || got != tc.text {
				t.Fatalf("Gist = %q, %v, %v; want %q, true, nil", got, ok, err, tc.text)
			}
			// A second put of the same key keeps the first value.
			if err := db.PutGist(ctx, tc.key, "overwritten?"); err != nil {
				t.Fatal(err)
			}
			if got, _, _ := db.Gist(ctx, tc.key); got != tc.text {
				t.Fatalf("after second put Gist = %q, want first value %q", got, tc.text)
			}
		})
	}
}

// countingGister returns a fake gister that records its calls and answers
// "<variant>: <text>".
func countingGister(name string, calls *[]swc.GistRequest) *fakeGister {
	return &fakeGister{name: name, gist: func(_ context.Context, req swc.GistRequest) (string, error) {
		*calls = append(*calls, req)
		return string(req.Variant) + ": " + req.Text, nil
	}}
}

func promptHashes(v swc.GistVariant) string { return Hash("prompt for " + string(v)) }

func TestCachedGisterVariantIsolation(t *testing.T) {
	db := openTest(t)
	var calls []swc.GistRequest
	g := CachedGister(countingGister("extractive", &calls), db, promptHashes)
	ctx := t.Context()
	chunk := "Caroline went to the support group on 7 May."

	full, err := g.Gist(ctx, swc.GistRequest{Variant: swc.GistFull, Date: "8 May 2023", Text: chunk})
	if err != nil {
		t.Fatal(err)
	}
	temporal, err := g.Gist(ctx, swc.GistRequest{Variant: swc.GistTemporal, Date: "8 May 2023", Text: chunk})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 {
		t.Fatalf("inner calls = %d, want 2 (temporal must not reuse the full gist)", len(calls))
	}
	if full == temporal {
		t.Fatalf("full and temporal gists are equal: %q", full)
	}
	if full != "full: "+chunk || temporal != "temporal: "+chunk {
		t.Fatalf("gists = %q, %q", full, temporal)
	}

	// Even with identical prompt hashes the variant field separates them.
	sameKey := GistKey{"full", "g", "p", "c"}
	if err := db.PutGist(ctx, sameKey, "full gist"); err != nil {
		t.Fatal(err)
	}
	sameKey.Variant = "temporal"
	if _, ok, err := db.Gist(ctx, sameKey); err != nil || ok {
		t.Fatalf("temporal lookup of a full entry: ok=%v err=%v, want miss", ok, err)
	}
}

func TestCachedGisterWarmCacheMakesNoCalls(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	reqs := []swc.GistRequest{
		{Variant: swc.GistFull, Date: "1 Jan 2023", Text: "a"},
		{Variant: swc.GistTemporal, Date: "1 Jan 2023", Text: "a"},
		{Variant: swc.GistFull, Date: "2 Jan 2023", Text: "a"}, // other date, other entry
		{Variant: swc.GistFull, Date: "1 Jan 2023", Text: "b"},
		{Variant: swc.GistSummary, Date: "", Text: "c"},
	}
	var cold []swc.GistRequest
	g := CachedGister(countingGister("extractive", &cold), db, promptHashes)
	want := make([]string, len(reqs))
	for i, r := range reqs {
		var err error
		if want[i], err = g.Gist(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if len(cold) != len(reqs) {
		t.Fatalf("cold inner calls = %d, want %d", len(cold), len(reqs))
	}
	if s := db.Stats(); s.GistHits != 0 || s.GistMisses != int64(len(reqs)) {
		t.Fatalf("cold stats = %+v", s)
	}

	// A new decorator (a re-run) over a gister that must not be called.
	warm := CachedGister(&fakeGister{name: "extractive", gist: func(context.Context, swc.GistRequest) (string, error) {
		t.Fatal("inner gister called on a warm cache")
		return "", nil
	}}, db, promptHashes)
	for i, r := range reqs {
		got, err := warm.Gist(ctx, r)
		if err != nil || got != want[i] {
			t.Fatalf("warm Gist(%+v) = %q, %v; want %q", r, got, err, want[i])
		}
	}
	if s := db.Stats(); s.GistHits != int64(len(reqs)) {
		t.Fatalf("warm hits = %d, want %d", s.GistHits, len(reqs))
	}
	if warm.Name() != "extractive" {
		t.Fatalf("Name = %q", warm.Name())
	}
}

func TestCachedGisterKeyParts(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	req := swc.GistRequest{Variant: swc.GistFull, Date: "d", Text: "t"}
	var calls []swc.GistRequest
	if _, err := CachedGister(countingGister("a", &calls), db, promptHashes).Gist(ctx, req); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		gister string
		prompt func(swc.GistVariant) string
	}{
		{"other gister name", "b", promptHashes},
		{"changed prompt", "a", func(v swc.GistVariant) string { return Hash("new prompt " + string(v)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(calls)
			if _, err := CachedGister(countingGister(tc.gister, &calls), db, tc.prompt).Gist(ctx, req); err != nil {
				t.Fatal(err)
			}
			if len(calls) != n+1 {
				t.Fatalf("inner not called: the %s must miss", tc.name)
			}
		})
	}
}

func TestCachedGisterDoesNotCacheErrors(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	boom := errors.New("boom")
	fail := true
	calls := 0
	g := CachedGister(&fakeGister{name: "g", gist: func(context.Context, swc.GistRequest) (string, error) {
		calls++
		if fail {
			return "", boom
		}
		return "ok", nil
	}}, db, promptHashes)
	req := swc.GistRequest{Variant: swc.GistFull, Text: "x"}
	if _, err := g.Gist(ctx, req); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	fail = false
	got, err := g.Gist(ctx, req)
	if err != nil || got != "ok" || calls != 2 {
		t.Fatalf("after error: %q, %v, calls=%d; want ok, nil, 2", got, err, calls)
	}
}

func TestCachedGisterClosedDB(t *testing.T) {
	db := openTest(t)
	g := CachedGister(&fakeGister{name: "g", gist: func(context.Context, swc.GistRequest) (string, error) {
		return "x", nil
	}}, db, promptHashes)
	db.db.Close()
	if _, err := g.Gist(t.Context(), swc.GistRequest{Variant: swc.GistFull, Text: "x"}); err == nil {
		t.Fatal("Gist on a closed cache succeeded, want error")
	}
}
