package selection

import (
	"testing"
	"time"

	"github.com/swcmem/swc"
)

func TestPersonalAsks(t *testing.T) {
	for _, tc := range []struct {
		text           string
		personal, asks bool
	}{
		{"I went to the lake.", true, false},
		{"I'm off to Paris next week!", true, false},
		{"We’ve been there twice", true, false},
		{"Our dog loves it.", true, false},
		{"That sounds wonderful, Mel!", false, false},
		{"Did you like it? ", false, true},
		{"What did my sister say?", true, true},
		{"Iris and Maya went hiking.", false, false}, // names, not "I"
		{"", false, false},
	} {
		if p, a := personal(tc.text), asks(tc.text); p != tc.personal || a != tc.asks {
			t.Errorf("%q: personal %v, asks %v; want %v, %v", tc.text, p, a, tc.personal, tc.asks)
		}
	}
}

func TestSessionHeader(t *testing.T) {
	s := &swc.Session{Index: 2, Start: time.Date(2023, 6, 9, 19, 55, 0, 0, time.UTC), DateText: "7:55 pm on 9 June, 2023"}
	if got, want := SessionHeader(s), "[Session 3 — 9 June 2023]"; got != want {
		t.Errorf("SessionHeader = %q, want %q", got, want)
	}
	s.Start = time.Time{}
	if got, want := SessionHeader(s), swc.SessionHeader(s); got != want {
		t.Errorf("without a start time: SessionHeader = %q, want %q", got, want)
	}
}
