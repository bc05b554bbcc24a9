package tokens

import (
	"math/rand/v2"
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

// TestTruncatePrefix: truncating from an encoded prefix gives the
// truncation of the whole text's encoding, for long texts of many kinds
// (code, JSON, logs, prose in several scripts, long runs of one letter,
// base64) at budgets from a token to past the text.
func TestTruncatePrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b64 := make([]byte, 30000)
	for i := range b64 {
		b64[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[rng.IntN(64)]
	}
	texts := []string{
		strings.Repeat("func (c *Compressor) loopWalk(l *loopShape, lc *loopCosts, fixed int) (b, d int, over bool) {\n\tbudget := o.Budget\n", 300),
		strings.Repeat(`{"id": 12345, "name": "naïve café", "tags": ["a", "b"], "ok": true}, `, 500),
		strings.Repeat("2026-12-06T05:34:14Z INFO proxy: passthrough reason=\"parse: messages[3].role\" 200 OK 12.5ms\n", 400),
		strings.Repeat("王伟说你好世界。今天天气很好，我们去公园散步吧！", 800),
		strings.Repeat("a", 40000),
		strings.Repeat(" ", 5000) + "x" + strings.Repeat("\n", 3000) + "y",
		string(b64),
		strings.Repeat("🎉 emoji party 🎉🎉 ", 2000),
	}
	whole := func(s string, max int) string {
		ids, _, err := get().Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) <= max {
			return s
		}
		out, _ := get().Decode(ids[:max])
		n := min(len(out), len(s))
		for n > 0 && !utf8.ValidString(s[:n]) {
			n--
		}
		return s[:n]
	}
	for _, s := range texts {
		for _, max := range []int{1, 7, 100, 513, 2000, 5000, Count(s) - 1, Count(s), Count(s) + 10} {
			if max <= 0 {
				continue
			}
			if got, want := truncateLibrary(s, max), whole(s, max); got != want {
				t.Errorf("truncateLibrary(%.30q…, %d): %d bytes, the whole text's encoding gives %d", s, max, len(got), len(want))
			}
		}
	}
}

// BenchmarkTruncateLong: a 100,000-token log cut to 2,000 tokens, from an
// encoded prefix (Truncate) and, the baseline, by encoding it whole.
func BenchmarkTruncateLong(b *testing.B) {
	s := strings.Repeat("2026-12-06T05:34:14Z INFO proxy: passthrough reason=\"parse: messages[3].role\" 200 OK 12.5ms naïve\n", 3000)
	b.Run("prefix", func(b *testing.B) {
		for b.Loop() {
			Truncate(s, 2000)
		}
	})
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			ids, _, _ := get().Encode(s)
			get().Decode(ids[:2000])
		}
	})
}
