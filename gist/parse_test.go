package gist

import (
	"reflect"
	"testing"
)

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Hey Mel! Good to see you! How have you been?", []string{"Hey Mel!", "Good to see you!", "How have you been?"}},
		{"I met Dr. Smith at 5 p.m. today. It was fine.", []string{"I met Dr. Smith at 5 p.m. today.", "It was fine."}},
		{"She said \"wow!\" and left. Then J. K. Rowling arrived...", []string{"She said \"wow!\" and left.", "Then J. K. Rowling arrived..."}},
		{"Pi is 3.14 exactly. No split in 3.14", []string{"Pi is 3.14 exactly.", "No split in 3.14"}},
		{"no final punctuation", []string{"no final punctuation"}},
	}
	for _, tt := range tests {
		if got := splitSentences(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitSentences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	in := "Session 2 — 1:56 pm on 8 May, 2023\n" +
		"Caroline: Hi! I went to a support group yesterday.\n" +
		"\n" +
		"Melanie: That's great. How was it?\n" +
		"It was a long week.\n" +
		"[Session 3 — 9 May 2023]\n" +
		"Mary Ann Lee: Fine."
	sents, headers := parse(in)
	want := []sentence{
		{"Caroline", "Hi!", 1, 0},
		{"Caroline", "I went to a support group yesterday.", 1, 1},
		{"Melanie", "That's great.", 2, 2},
		{"Melanie", "How was it?", 2, 3},
		{"Melanie", "It was a long week.", 2, 4},
		{"Mary Ann Lee", "Fine.", 4, 5},
	}
	if headers != 2 {
		t.Errorf("headers = %d, want 2", headers)
	}
	if !reflect.DeepEqual(sents, want) {
		t.Errorf("parse =\n%+v\nwant\n%+v", sents, want)
	}
}

func TestSpeakerLine(t *testing.T) {
	tests := []struct {
		in, speaker, text string
		ok                bool
	}{
		{"Caroline: Hi there", "Caroline", "Hi there", true},
		{"Mary Ann O'Neil-Smith: ok", "Mary Ann O'Neil-Smith", "ok", true},
		{"Session 3 (1:56 pm on 8 May, 2023)", "", "", false},
		{"[Session 3]: x", "", "", false},
		{"caroline: lowercase", "", "", false},
		{"One Two Three Four Five: too long", "", "", false},
		{"No colon here", "", "", false},
	}
	for _, tt := range tests {
		sp, text, ok := speakerLine(tt.in)
		if sp != tt.speaker || text != tt.text || ok != tt.ok {
			t.Errorf("speakerLine(%q) = %q, %q, %v; want %q, %q, %v", tt.in, sp, text, ok, tt.speaker, tt.text, tt.ok)
		}
	}
}
