package porter

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc/internal/skipnote"
)

// nltkFile holds every distinct LoCoMo word with the stem NLTK 3.8's
// PorterStemmer() (NLTK_EXTENSIONS) gives it, made by running NLTK.
var nltkFile = filepath.Join("..", "..", "shared", "data", "porter", "nltk_porter_locomo.tsv")

// TestStemAgainstNLTK compares Stem with NLTK itself on all 6,542 distinct
// words of locomo10.json.
func TestStemAgainstNLTK(t *testing.T) {
	f, err := os.Open(nltkFile)
	if err != nil {
		skipnote.Skip(t, "NLTK stems", "not found at "+nltkFile+" (word<TAB>stem lines made with NLTK 3.8's PorterStemmer), so the comparison with NLTK skips")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, bad := 0, 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "#") || text == "" {
			continue
		}
		word, stem, ok := strings.Cut(text, "\t")
		if !ok {
			t.Fatalf("%s:%d: no tab in %q", nltkFile, line, text)
		}
		n++
		if got := Stem(word); got != stem {
			bad++
			if bad <= 20 {
				t.Errorf("Stem(%q) = %q, NLTK gives %q", word, got, stem)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 6542 {
		t.Errorf("%d words in %s, want 6,542", n, nltkFile)
	}
	if bad > 0 {
		t.Errorf("%d of %d words stem differently from NLTK", bad, n)
	}
}
