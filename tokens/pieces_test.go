package tokens

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dlclark/regexp2/v2"
	"github.com/swcmem/swc"
)

// cl100kPattern is the tokenizer library's cl100k_base pre-tokenizer.
const cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// libraryPieces returns the pieces the expression cuts s into.
func libraryPieces(t *testing.T, re *regexp2.Regexp, s string) []string {
	var out []string
	m, err := re.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ourPieces(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := pieceEnd(s, i)
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// TestPiecesMatchLibrary: on plain texts the cuts are the expression's,
// piece for piece, and on every text countText gives the library's count
// of the whole text (plain stretches cut, the stretches around other
// characters counted by the library) — on every LoCoMo turn and rendered
// conversation, on the edge cases of each alternative, and on 100,000
// random strings of the characters the alternatives turn on, with
// accented letters, curly quotes, dashes, non-breaking spaces, emoji and
// invalid UTF-8 among them.
func TestPiecesMatchLibrary(t *testing.T) {
	re := regexp2.MustCompile(cl100kPattern, regexp2.None)
	cases := []string{
		"", " ", "  ", "\t", "\n", "\r\n", " \n ", "a", "1", "!", "'", "'s", "'S", "'Re", "'rE", "'ll", "'LL", "'lL", "'ve", "'d", "'m", "'t", "'x",
		"don't", "I'm", "we'll", "they've", "it'd", "'tis", "''s", "!'s", "x 's", "12345678", "1a2b", "a1", " 1", "  1", "\t1", "\tword", " word", "  word",
		"   ", "   x", "  !", " !", "!!!\n\n\nx", "?\r\n", "...", "a...b", "x  \n  y", "x \t\n\t y", "end  ", "end \n", "(word)", "-word", "[Session 3 — x]",
		"Caroline: I went to the LGBTQ support group yesterday.", "Update 12 for agent 3: My manager Priya approved the budget of 40,000 dollars.",
		"{\"city\":\"Lisbon\",\"day\":14}", "[swc:h3f9a2c1b0 execute_bash(cat -n x.py) → exit 1, 3 failed]", "→x", " →x", "→ x", "x→", "…]", "a…", "’s", "x’s", "“quoted”", "•item", "—\n", "→\n\nx", " → ", "→→", "←→…", "a\tb\rc\nd", "  \n\n  \t", "x\r\r\ny", "~`^_|\\@#$%&*+=<>/",
	}
	for _, c := range locomoConversations(t) {
		cases = append(cases, swc.RenderConversation(c))
		for _, s := range c.Sessions {
			for _, tu := range s.Turns {
				cases = append(cases, tu.Text, swc.RenderTurn(tu))
			}
		}
	}
	alphabet := []string{"é", "’", "—", "→", "…", "–", "‘", "“", "”", "•", "←", "\u2191", "\u201a", "\u2013x", "\u00e2\u0080", "\xe2\x86", "\xe2\x80\x99s", "\u00a0", "🎉", "°", "\x85", "\xff", " ", " ", "  ", "\t", "\n", "\r", "'", "s", "S", "t", "r", "e", "E", "v", "l", "L", "m", "d", "a", "Z", "0", "7", "123", ".", "!", "?", ",", "-", "(", "\""}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 100000
	if testing.Short() {
		n = 10000
	}
	for range n {
		var b strings.Builder
		for range rng.IntN(12) + 1 {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	plainCases := 0
	for _, s := range cases {
		want := libraryCount(t, s)
		if got, err := countText(s); err != nil || got != want {
			t.Fatalf("countText(%q) = %d, %v; the library counts %d", s, got, err, want)
		}
		if plainPrefix(s) < len(s) {
			continue
		}
		plainCases++
		if got, want := ourPieces(s), libraryPieces(t, re, s); strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Fatalf("pieces of %q:\n got %q\nwant %q", s, got, want)
		}
	}
	if plainCases < n/10 {
		t.Fatalf("only %d of %d texts plain", plainCases, len(cases))
	}
	t.Logf("%d texts, %d plain", len(cases), plainCases)
}

// libraryCount is the tokenizer library's count of s, whole.
func libraryCount(t *testing.T, s string) int {
	n, err := get().Count(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// BenchmarkCountText counts LoCoMo conv-26 rendered whole (about 19,000
// tokens; the built-in test text without LoCoMo) with the library alone
// and with countText, in one process. The piece counts are remembered
// after the first iteration, as a process that has counted a few texts
// has most of their words.
func BenchmarkCountText(b *testing.B) {
	text := strings.Repeat("Melanie: I ran a charity race last Sunday! ", 1000)
	if convs := locomoConversations(b); len(convs) > 0 {
		text = swc.RenderConversation(convs[0])
	}
	for _, c := range []struct {
		name  string
		count func(string) (int, error)
	}{{"library", func(s string) (int, error) { return get().Count(s) }}, {"pieces", countText}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := c.count(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestShortPiecesOneToken: every piece pieceCount counts without asking
// the library is one token — each byte of a plain text, each run of one
// to three digits.
func TestShortPiecesOneToken(t *testing.T) {
	var ps []string
	for c := range 128 {
		if b := byte(c); b >= ' ' && b <= '~' || b == '\t' || b == '\n' || b == '\r' {
			ps = append(ps, string(b))
		}
	}
	for n := range 1000 {
		ps = append(ps, fmt.Sprint(n), fmt.Sprintf("%02d", n%100), fmt.Sprintf("%03d", n))
	}
	for _, p := range ps {
		if got := countPiece(p); got != 1 {
			t.Errorf("piece %q: %d tokens, want 1", p, got)
		}
		if got := pieceCount(p); got != countPiece(p) {
			t.Errorf("pieceCount(%q) = %d, the library %d", p, got, countPiece(p))
		}
	}
}

// TestShortCount: a piece's count from shortPieces is the library's,
// when counted and when remembered, with 40,000 random short pieces
// filling more than the table's slots (so slots are taken over); a piece
// holding a zero byte is left to pieceCounts.
func TestShortCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.,:;()[]{}<>=+-*/\\'\"`~!?@#$%^&|\t\n\r"
	var ps []string
	for range 40000 {
		b := make([]byte, 2+rng.IntN(shortMax-1))
		for k := range b {
			b[k] = chars[rng.IntN(len(chars))]
		}
		ps = append(ps, string(b))
	}
	ps = append(ps, "ab", "ba", "→x", " →", "…]", "'s", "  ", "\n\n", "\t\t")
	for round := range 2 {
		for _, p := range ps {
			n, ok := shortCount(p)
			if want := countPiece(p); !ok || n != want {
				t.Fatalf("round %d: shortCount(%q) = %d, %v; the library %d", round, p, n, ok, want)
			}
		}
	}
	if _, ok := shortCount("a\x00"); ok {
		t.Error(`shortCount("a\x00") answered; want it left to pieceCounts`)
	}
}
