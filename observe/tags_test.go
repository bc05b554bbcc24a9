package observe

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestReplaceTags: replaceTags gives what a strings.Replacer of tagPairs
// gives, on mini-swe-agent's shapes and on random strings of the tags'
// pieces.
func TestReplaceTags(t *testing.T) {
	var oldnew []string
	for _, p := range tagPairs {
		oldnew = append(oldnew, p[0], p[1])
	}
	r := strings.NewReplacer(oldnew...)
	cases := []string{
		"", "plain", "<returncode>0</returncode>\n<output>\nx\n</output>", "\n<output>\nfile.py\n</output>",
		"<output_head>\na\n</output_head>\n<elided_chars>\n120 characters elided\n</elided_chars>\n<output_tail>\nb\n</output_tail>",
		"<stdout>x</stdout><stderr>y</stderr>", "<<output>>", "\n\n</output>", "<output>\n</output>", "a<b\n<c</output",
	}
	for _, c := range cases {
		if got, want := replaceTags(c), r.Replace(c); got != want {
			t.Errorf("replaceTags(%q) = %q, want %q", c, got, want)
		}
	}
	parts := []string{"<", "\n", "x", "/", ">", "<output>", "</output>", "<output", "output>", "_head", "_tail", "<output_head>",
		"</output_tail>", "<elided_chars>", "</elided_chars>", "<stdout>", "</stderr>", "\n</", "é"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if got, want := replaceTags(s), r.Replace(s); got != want {
			t.Fatalf("replaceTags(%q) = %q, want %q", s, got, want)
		}
	}
}
