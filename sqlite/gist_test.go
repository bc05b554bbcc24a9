package sqlite

import (
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
		key  swc.GistKey
		text string
	}{
		{"plain", swc.GistKey{Variant: "full", Gister: "extractive", PromptHash: Hash("p"), ContentHash: Hash("c1")}, "Alice moved to Paris."},
		{"temporal", swc.GistKey{Variant: "temporal", Gister: "extractive", PromptHash: Hash("p"), ContentHash: Hash("c1")}, "On 7 May Alice moved."},
		{"other model", swc.GistKey{Variant: "full", Gister: "anthropic:claude-haiku-4-5-20251001", PromptHash: Hash("p"), ContentHash: Hash("c1")}, "haiku gist"},
		{"other prompt", swc.GistKey{Variant: "full", Gister: "extractive", PromptHash: Hash("p2"), ContentHash: Hash("c1")}, "prompt two"},
		{"unicode and empty gist", swc.GistKey{Variant: "full", Gister: "x", PromptHash: "", ContentHash: "ü"}, ""},
		{"multiline", swc.GistKey{Variant: "full", Gister: "x", PromptHash: "p", ContentHash: "c2"}, "line one\nline 'two' \"quoted\"\x00nul"},
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

func promptHashes(v swc.GistVariant) string { return Hash("prompt for " + string(v)) }

// TestGistVariantIsolation: keys equal but for the variant never match.
func TestGistVariantIsolation(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	key := swc.GistKey{Variant: swc.GistFull, Gister: "g", PromptHash: "p", ContentHash: "c"}
	if err := db.PutGist(ctx, key, "full gist"); err != nil {
		t.Fatal(err)
	}
	key.Variant = swc.GistTemporal
	if _, ok, err := db.Gist(ctx, key); err != nil || ok {
		t.Fatalf("temporal lookup of a full entry: ok=%v err=%v, want miss", ok, err)
	}
}

// TestGistStats: every lookup counts as a hit or a miss.
func TestGistStats(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	key := swc.GistKey{Variant: swc.GistFull, Gister: "g", PromptHash: "p", ContentHash: "c"}
	for _, put := range []bool{false, true, false} {
		if put {
			if err := db.PutGist(ctx, key, "x"); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, _, err := db.Gist(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	if s := db.Stats(); s.GistHits != 1 || s.GistMisses != 1 {
		t.Fatalf("stats %+v, want 1 hit and 1 miss", s)
	}
}

func TestGistClosedDB(t *testing.T) {
	db := openTest(t)
	db.db.Close()
	key := swc.GistKey{Variant: swc.GistFull, Gister: "g"}
	if _, _, err := db.Gist(t.Context(), key); err == nil {
		t.Fatal("Gist on a closed cache succeeded, want error")
	}
	if err := db.PutGist(t.Context(), key, "x"); err == nil {
		t.Fatal("PutGist on a closed cache succeeded, want error")
	}
}
