package term

import (
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestStem(t *testing.T) {
	tests := []struct {
		raw  string
		want string
		keep bool
	}{
		{"painting", "paint", true},
		{"caroline's", "carolin", true},
		{"don't", "", false},      // a stopword with its apostrophe
		{"yeah", "", false},       // a chat filler
		{"x", "", false},          // a single letter
		{"5", "5", true},          // a single digit stays
		{"'s", "", false},         // nothing left after the possessive
		{"rock'n", "rockn", true}, // inner apostrophe removed
		{"café", "café", true},    // non-ASCII passes through the stemmer unchanged
	}
	for _, tc := range tests {
		got, keep := Stem(tc.raw)
		if got != tc.want || keep != tc.keep {
			t.Errorf("Stem(%q) = %q, %v; want %q, %v", tc.raw, got, keep, tc.want, tc.keep)
		}
	}
}

// TestStemCached: the cache gives what stemming gives (Stem and
// StemBytes), for words seen
// again, for words that share a slot (more words than slots), and from
// goroutines at once.
func TestStemCached(t *testing.T) {
	words := []string{"running", "runs", "the", "a", "caroline's", "don't", "5", "x", "Ünïcödé", "supercalifragilisticexpialidocious-and-more-than-32-bytes"}
	for i := range 3 * stemSlots {
		words = append(words, "word"+strconv.Itoa(i)+"ing")
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 2 {
				for i := range words {
					w := words[(i*(g+1)+round)%len(words)]
					got, gotKeep := Stem(w)
					want, wantKeep := stem(w)
					if got != want || gotKeep != wantKeep {
						t.Errorf("Stem(%q) = %q, %v; stem gives %q, %v", w, got, gotKeep, want, wantKeep)
						return
					}
					if got, gotKeep := StemBytes([]byte(w)); got != want || gotKeep != wantKeep {
						t.Errorf("StemBytes(%q) = %q, %v; stem gives %q, %v", w, got, gotKeep, want, wantKeep)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkStem: a conversation's words stemmed as they come, through the
// cache and without it.
func BenchmarkStem(b *testing.B) {
	text := strings.Fields(strings.Repeat("Caroline went to the LGBTQ support group yesterday and she was really happy about the counseling sessions she is planning ", 50))
	for _, tc := range []struct {
		name string
		f    func(string) (string, bool)
	}{{"cached", Stem}, {"uncached", stem}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				for _, w := range text {
					tc.f(strings.ToLower(w))
				}
			}
		})
	}
}
