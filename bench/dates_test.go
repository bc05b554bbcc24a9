package bench

import (
	"slices"
	"strings"
	"testing"
)

func TestWrittenDates(t *testing.T) {
	tests := []struct{ in, want string }{
		{"On 31.12.2023.", "On 31 December 2023."},
		{"On 02.01.2024", "On 2 January 2024"},
		{"2.1.2024", "2 January 2024"},
		{"2023-12-31", "31 December 2023"},
		{"2023/05/20 (Sat) 02:21", "20 May 2023 (Sat) 02:21"},
		{"(31.12.2023)", "(31 December 2023)"},
		{"Jan 21, 2024", "January 21, 2024"},
		{"few weeks after 12 Jan 2024", "few weeks after 12 January 2024"},
		{"Sept. 2023", "September. 2023"},
		{"DEC 2023", "December 2023"},
		{"Aug 15th", "August 15"},
		{"the 3rd of June", "the 3 of June"},
		{"02 Jan 2024", "2 January 2024"},
		{"December 01, 2023", "December 1, 2023"},
		{"on 20 May 2023", "on 20 May 2023"},       // swc's own form
		{"May 2023", "May 2023"},                   // already whole
		{"you may 2 times", "you may 2 times"},     // the verb
		{"Jan said hi", "Jan said hi"},             // a name: no number beside it
		{"Jan, 3 cats", "January, 3 cats"},         // a number beside it is enough
		{"version 1.13.2024", "version 1.13.2024"}, // no month 13
		{"29.02.2023", "29.02.2023"},               // no such day
		{"29.02.2024", "29 February 2024"},
		{"12/31/2023", "12/31/2023"}, // slashes, month first: ambiguous, left
		{"1.5k tokens, 3-day trip", "1.5k tokens, 3-day trip"},
		{"no digits, Jan", "no digits, Jan"},
		{"", ""},
		{"3rd", "3rd"}, // an ordinal without a month
		{"line one 31.12.2023\nline two", "line one 31 December 2023\nline two"},
		{"Jan\n21", "Jan\n21"}, // not on one line
	}
	for _, tt := range tests {
		if got := WrittenDates(tt.in); got != tt.want {
			t.Errorf("WrittenDates(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDatesInTokenRecall: REALTALK's golds write dates as "On
// 31.12.2023", one token once punctuation is deleted; with the date read,
// a context naming the day in words keeps it, and F1 keeps LoCoMo's
// normalisation.
func TestDatesInTokenRecall(t *testing.T) {
	ctx := "[Session 4 — 10:02 pm on 31 December, 2023]\nFahim Khan: happy new year's eve!"
	for gold, want := range map[string]float64{
		"On 31.12.2023":    1,
		"On 31.12.2023.":   1,
		"31 Dec 2023":      1,
		"Dec 31st, 2023":   1,
		"On 30.12.2023":    2.0 / 3,
		"On 31.12.2024":    2.0 / 3,
		"new year's eve":   1,
		"2023-12-31 night": 0.75,
	} {
		if got := AnswerTokenRecall(ctx, gold); got != want {
			t.Errorf("AnswerTokenRecall(%q) = %v, want %v", gold, got, want)
		}
	}
	// A context writing the date in digits keeps a gold in words.
	if got := AnswerTokenRecall("Kate: see you on 29.12.2023!", "29 December 2023"); got != 1 {
		t.Errorf("digits in the context: %v, want 1", got)
	}
	if got := TokenF1("31 December 2023", "31.12.2023"); got != 0 {
		t.Errorf("F1 reads dates as LoCoMo does (no match): %v", got)
	}
	if got := Tokens("On 31.12.2023"); !slices.Equal(got, []string{"on", "31122023"}) {
		t.Errorf("Tokens is LoCoMo's normalisation: %q", got)
	}
}

// FuzzWrittenDates: it never panics, keeps every line break, and a
// rewritten text is not rewritten again.
func FuzzWrittenDates(f *testing.F) {
	for _, s := range []string{"On 31.12.2023.", "Aug 15th", "02 Jan 2024", "2023/05/20 (Sat)", "Sept. 2023", "1.13.2024", "0.0.0000", "Jan 0th", "dec 99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w := WrittenDates(s)
		if strings.Count(w, "\n") != strings.Count(s, "\n") {
			t.Fatalf("WrittenDates(%q) = %q: line breaks changed", s, w)
		}
		if again := WrittenDates(w); again != w {
			t.Fatalf("WrittenDates(%q) = %q, then %q", s, w, again)
		}
	})
}
