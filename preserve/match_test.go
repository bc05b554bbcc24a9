package preserve

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Last  Saturday", "last saturday"},
		{"  7\tMay\n2023 ", "7 may 2023"},
		{"Caroline’s", "caroline's"},
		{"ÉCOLE", "école"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := normalize(tt.in); got != tt.want {
			t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestContainsWord(t *testing.T) {
	tests := []struct {
		hay, needle string
		want        bool
	}{
		{"she ran a race", "ran", true},
		{"the grand prix", "ran", false}, // inside a word
		{"ran-up to it", "ran", true},    // hyphen is a boundary
		{"caroline's talk", "caroline", true},
		{"carolines", "caroline", false},
		{"on 7 may 2023.", "7 may 2023", true},
		{"on 17 may 2023", "7 may 2023", false},
		{"grandran ran", "ran", true}, // a later occurrence counts
		{"café au lait", "café", true},
		{"cafés", "café", false},
		{"x", "", false},
		{"[20 may 2023]", "20 may 2023", true},
	}
	for _, tt := range tests {
		if got := containsWord(tt.hay, tt.needle); got != tt.want {
			t.Errorf("containsWord(%q, %q) = %v, want %v", tt.hay, tt.needle, got, tt.want)
		}
	}
}

func TestDayPhrase(t *testing.T) {
	for in, want := range map[string]string{"2023-05-20": "20 May 2023", "2023-05": "", "P3Y": "", "2023-W20": ""} {
		if got := dayPhrase(in); got != want {
			t.Errorf("dayPhrase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSentenceAround(t *testing.T) {
	text := "Hi! I went to Lisbon yesterday. It was great.\nSee you soon"
	tests := []struct {
		word, want string
	}{
		{"Lisbon", "I went to Lisbon yesterday."},
		{"great", "It was great."},
		{"soon", "See you soon"},
		{"Hi", "Hi!"},
	}
	for _, tt := range tests {
		i := strings.Index(text, tt.word)
		if got := sentenceAround(text, i, i+len(tt.word)); got != tt.want {
			t.Errorf("sentenceAround(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
