package selection

import (
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bm25"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/mention"
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

// TestTurnTermsOfSentences: a turn's terms, made from its sentences', are
// the terms of its text; its Whole unit's salience, filled only when a
// selection of whole turns asks, is its text's; and the lower bound of
// the whole conversation's tokens is one — on every LoCoMo conversation
// (the sample under -short) anchored, and an agent-like untimed one.
func TestTurnTermsOfSentences(t *testing.T) {
	salient := func(text string, speakers []string) int { // strategy.Salient
		return len(mention.Entities(text, speakers)) + len(mention.Numbers(text))
	}
	a := &Analyzer{Anchor: mention.Anchor, Salient: salient, Dated: mention.HasTemporal}
	convs := locomotest.Load(t)
	untimed := *convs[0]
	untimed.Sessions = append([]swc.Session(nil), untimed.Sessions...)
	for i := range untimed.Sessions {
		untimed.Sessions[i].Start = time.Time{}
	}
	for _, c := range append(convs, &untimed) {
		x := a.Analyze(c)
		x.wholeUnits()
		speakers := []string{c.SpeakerA, c.SpeakerB}
		for i, ti := range x.Turns {
			text := ti.Line[len(ti.Turn.Speaker)+2:]
			if got, want := strings.Join(ti.Terms, " "), strings.Join(bm25.Terms(text), " "); got != want {
				t.Fatalf("%s turn %d %q: terms\n %s\nwant\n %s", c.ID, i, text, got, want)
			}
			w := ti.Whole
			if w.Text != text || w.Salient != salient(text, speakers) || w.Dated != mention.HasTemporal(text) || w.Personal != personal(text) || w.Asks != asks(text) {
				t.Fatalf("%s turn %d: whole unit %+v", c.ID, i, w)
			}
			if len(w.ids) != len(w.Terms) || (len(w.Terms) > 0 && x.idf[w.ids[0]] != x.IDF[w.Terms[0]]) {
				t.Fatalf("%s turn %d: ids %v of terms %v", c.ID, i, w.ids, w.Terms)
			}
		}
		if x.wholeAtLeast > x.WholeTokens() || x.wholeAtLeast < x.WholeTokens()/2 {
			t.Errorf("%s: lower bound %d of the whole conversation's %d tokens", c.ID, x.wholeAtLeast, x.WholeTokens())
		}
	}
}

func TestLastPieceBound(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int
	}{
		{"", 0}, {"Mel: hi there.", 7}, {"Mel: ", 1}, {"Mel:  \t", 3}, {"Mel: [shares an image: a dog]", 5},
		{"word", 4}, {"Mel: café", 6}, {"Mel: x\u00a0", 2},
	} {
		if got := lastPieceBound(tc.line); got != tc.want {
			t.Errorf("lastPieceBound(%q) = %d, want %d", tc.line, got, tc.want)
		}
	}
}

// personalFields is personal as it was written first (words split with
// strings.FieldsFunc, each lowercased whole), the reference of
// TestPersonalScan.
func personalFields(text string) bool {
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	}) {
		if i := strings.IndexAny(w, "'’"); i >= 0 {
			w = w[:i]
		}
		switch strings.ToLower(w) {
		case "i", "my", "me", "mine", "myself", "we", "our", "us", "ours", "ourselves":
			return true
		}
	}
	return false
}

// TestPersonalScan: personal's scan without allocations answers as the
// split into fields did, on every LoCoMo sentence and on edge cases.
func TestPersonalScan(t *testing.T) {
	texts := []string{"İ went", "MY dog", "ourselvesx", "'I", "I'm", "we’ve", "OURSELVES!", "Ｉ", "ÜS", "us’", "x-my-y", "mÿ", ""}
	for _, c := range locomotest.Load(t) {
		for _, s := range c.Sessions {
			for _, tu := range s.Turns {
				texts = append(texts, Sentences(tu.Text)...)
			}
		}
	}
	for _, s := range texts {
		if got, want := personal(s), personalFields(s); got != want {
			t.Errorf("personal(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestOneLine: oneLine is the words of strings.Fields joined by spaces,
// returned unchanged when already so.
func TestOneLine(t *testing.T) {
	texts := []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "a\u00a0b", "a\u3000b", "café au lait", "x\u0085y", "a\vb", "a\fb", "a\rb", "’tis ok"}
	for _, c := range locomotest.Load(t) {
		for _, s := range c.Sessions {
			for _, tu := range s.Turns {
				texts = append(texts, tu.Text)
			}
		}
	}
	for _, s := range texts {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
	}
}
