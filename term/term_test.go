package term

import "testing"

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
