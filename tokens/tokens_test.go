package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCount(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"Caroline: I went to the LGBTQ support group yesterday.", 12},
		{"tiktoken is great!", 6},
	}
	for _, tt := range tests {
		if got := Count(tt.in); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	s := strings.Repeat("one two three ", 50)
	got := Truncate(s, 10)
	if n := Count(got); n > 10 || n < 9 {
		t.Fatalf("Truncate to 10 gave %d tokens: %q", n, got)
	}
	if !strings.HasPrefix(s, got) {
		t.Fatalf("Truncate is not a prefix: %q", got)
	}
	if Truncate("short", 10) != "short" {
		t.Fatal("Truncate changed a short string")
	}
	for _, u := range []string{"🎉🎉🎉 party", "naïve café crème brûlée", "王伟说你好世界"} {
		for max := 1; max < 8; max++ {
			got := Truncate(u, max)
			if !utf8.ValidString(got) || !strings.HasPrefix(u, got) || Count(got) > max {
				t.Errorf("Truncate(%q, %d) = %q", u, max, got)
			}
		}
	}
	if Truncate("short", 0) != "" {
		t.Fatal("Truncate to 0 should be empty")
	}
}

func BenchmarkCount(b *testing.B) {
	for _, size := range []struct {
		name string
		reps int
	}{{"80words", 10}, {"8000words", 1000}} {
		s := strings.Repeat("Melanie: I ran a charity race last Sunday! ", size.reps)
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				Count(s)
			}
		})
	}
}

// TestTruncatePlain: Truncate of plain texts (cut into pieces, each
// piece's count remembered) is the library's truncation of the whole
// text, at every length.
func TestTruncatePlain(t *testing.T) {
	texts := []string{
		"[swc:h3f9a2c1b0 execute_bash({\"command\": \"cat -n src/app/mod_12.py\"}) → exit 1, 22 lines, FAILED tests/test_parser.py::test_case_7 - AssertionError]",
		"[assistant turn: Step 12: I will look at src/app/mod_3.py and the function handle_44 next.",
		strings.Repeat("one two three ", 20), "don't we'll    spaces\n\n\ttabs…“quoted” — dash", "12345678901 a1b2 ’s", "x", "",
	}
	for _, s := range texts {
		if plainPrefix(s) != len(s) {
			t.Fatalf("%q is not plain", s)
		}
		for max := 1; max <= Count(s)+1; max++ {
			if got, want := Truncate(s, max), truncateLibrary(s, max); got != want {
				t.Fatalf("Truncate(%q, %d) = %q; the library's %q", s, max, got, want)
			}
		}
	}
}
