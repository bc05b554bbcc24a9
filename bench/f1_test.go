package bench

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc"
)

type f1Case struct {
	Category   int     `json:"category"`
	Gold       string  `json:"gold"`
	Prediction string  `json:"prediction"`
	F1         float64 `json:"f1"`
	Note       string  `json:"note,omitempty"`
}

// TestF1Cases checks F1 against hand-worked cases (values rounded to six
// decimals in the file).
func TestF1Cases(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "f1_cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var c f1Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		got, err := F1(swc.Category(c.Category), c.Prediction, c.Gold)
		if err != nil {
			t.Errorf("line %d: %v", n, err)
			continue
		}
		if math.Abs(got-c.F1) > 1e-6 {
			t.Errorf("line %d: F1(%d, %q, %q) = %.6f, want %.6f (%s)", n, c.Category, c.Prediction, c.Gold, got, c.F1, c.Note)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("only %d cases", n)
	}
}

func TestF1UnknownCategory(t *testing.T) {
	for _, c := range []swc.Category{0, 6, -1} {
		if _, err := F1(c, "a", "b"); swc.ErrorCode(err) != swc.EINVALID {
			t.Errorf("F1(category %d) error = %v, want EINVALID", c, err)
		}
	}
}

func TestNormalizeAnswer(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The Cat, and a Hat!", "cat hat"},
		{"  Hello\tworld\n", "hello world"},
		{"an-apple", "anapple"},       // punctuation goes before articles
		{"the\u2014end", "\u2014end"}, // an em dash is not punctuation but ends a word
		{"and\u2019s", "\u2019s"},     // nor is a curly apostrophe
		{"théâtre the", "théâtre"},    // accented letters are word characters
		{"a_b the_c", "ab thec"},      // "_" is in string.punctuation
		{"", ""},
		{"A AN THE AND", ""},
		{"x\x1cy", "x y"}, // Python's split() splits on U+001C
	}
	for _, tt := range tests {
		if got := NormalizeAnswer(tt.in); got != tt.want {
			t.Errorf("NormalizeAnswer(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Tokens("the a"); got != nil {
		t.Errorf("Tokens of articles = %q, want nil", got)
	}
}

func BenchmarkF1(b *testing.B) {
	for b.Loop() {
		TokenF1("She went to the beach in Florida with her kids, last summer", "Florida beach")
		MultiF1("pottery, camping, painting", "Pottery, camping, painting, swimming")
	}
}
