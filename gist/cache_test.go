package gist

import (
	"context"
	"errors"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
)

// echoGister answers "<variant>: <text>".
func echoGister(name string) *mock.Gister {
	return &mock.Gister{ID: name, GistFn: func(_ context.Context, req swc.GistRequest) (string, error) {
		return string(req.Variant) + ": " + req.Text, nil
	}}
}

func promptHashes(v swc.GistVariant) string { return "prompt for " + string(v) }

// TestCachedMisses: a request misses, and calls the gister, whenever any
// part of its key differs from what is stored; it hits when none does.
func TestCachedMisses(t *testing.T) {
	cache := mock.NewGistCache()
	ctx := t.Context()
	base := swc.GistRequest{Variant: swc.GistFull, Date: "8 May 2023", Text: "Caroline went to the support group on 7 May."}
	first := echoGister("a")
	if _, err := Cached(first, cache, promptHashes).Gist(ctx, base); err != nil {
		t.Fatal(err)
	}
	other := func(f func(*swc.GistRequest)) swc.GistRequest { r := base; f(&r); return r }
	for _, tc := range []struct {
		name   string
		gister string
		prompt func(swc.GistVariant) string
		req    swc.GistRequest
		calls  int64
	}{
		{"same key", "a", promptHashes, base, 0},
		{"other variant", "a", promptHashes, other(func(r *swc.GistRequest) { r.Variant = swc.GistTemporal }), 1},
		{"other date", "a", promptHashes, other(func(r *swc.GistRequest) { r.Date = "9 May 2023" }), 1},
		{"other text", "a", promptHashes, other(func(r *swc.GistRequest) { r.Text += "!" }), 1},
		{"other gister", "b", promptHashes, base, 1},
		{"changed prompt", "a", func(v swc.GistVariant) string { return "new prompt " + string(v) }, base, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := echoGister(tc.gister)
			got, err := Cached(g, cache, tc.prompt).Gist(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if g.Calls.Load() != tc.calls {
				t.Fatalf("gister calls = %d, want %d", g.Calls.Load(), tc.calls)
			}
			if want := string(tc.req.Variant) + ": " + tc.req.Text; got != want {
				t.Fatalf("gist = %q, want %q", got, want)
			}
		})
	}
}

// TestCachedWarm: a new decorator over the same cache (a rerun) never
// calls its gister, and is named after it.
func TestCachedWarm(t *testing.T) {
	cache := mock.NewGistCache()
	ctx := t.Context()
	reqs := []swc.GistRequest{
		{Variant: swc.GistFull, Date: "1 Jan 2023", Text: "a"},
		{Variant: swc.GistTemporal, Date: "1 Jan 2023", Text: "a"},
		{Variant: swc.GistSummary, Text: "c"},
	}
	cold := echoGister("extractive")
	want := make([]string, len(reqs))
	for i, r := range reqs {
		var err error
		if want[i], err = Cached(cold, cache, promptHashes).Gist(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	warm := Cached(&mock.Gister{ID: "extractive"}, cache, promptHashes) // GistFn nil: a call panics
	for i, r := range reqs {
		if got, err := warm.Gist(ctx, r); err != nil || got != want[i] {
			t.Fatalf("warm Gist(%+v) = %q, %v; want %q", r, got, err, want[i])
		}
	}
	if cold.Calls.Load() != int64(len(reqs)) || warm.Name() != "extractive" {
		t.Fatalf("cold calls %d, warm name %q", cold.Calls.Load(), warm.Name())
	}
}

// TestCachedErrors: a gister's error is returned unchanged and not stored;
// the cache's read and write errors are returned.
func TestCachedErrors(t *testing.T) {
	ctx := t.Context()
	req := swc.GistRequest{Variant: swc.GistFull, Text: "x"}
	boom := errors.New("boom")
	cache := mock.NewGistCache()
	fail := true
	g := &mock.Gister{GistFn: func(context.Context, swc.GistRequest) (string, error) {
		if fail {
			return "", boom
		}
		return "ok", nil
	}}
	if _, err := Cached(g, cache, promptHashes).Gist(ctx, req); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	fail = false
	if got, err := Cached(g, cache, promptHashes).Gist(ctx, req); err != nil || got != "ok" || g.Calls.Load() != 2 {
		t.Fatalf("after an error: %q, %v, %d calls; want ok, nil, 2", got, err, g.Calls.Load())
	}

	read, write := errors.New("read"), errors.New("write")
	broken := mock.NewGistCache()
	broken.GistFn = func(context.Context, swc.GistKey) (string, bool, error) { return "", false, read }
	if _, err := Cached(echoGister("g"), broken, promptHashes).Gist(ctx, req); !errors.Is(err, read) {
		t.Fatalf("unreadable cache: err = %v", err)
	}
	broken = mock.NewGistCache()
	broken.PutGistFn = func(context.Context, swc.GistKey, string) error { return write }
	if _, err := Cached(echoGister("g"), broken, promptHashes).Gist(ctx, req); !errors.Is(err, write) {
		t.Fatalf("unwritable cache: err = %v", err)
	}
}
