package bench

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/swc-project/swc"
)

func TestTmpCross(t *testing.T) {
	f, _ := os.Open("/tmp/proto/vocab.tsv")
	sc := bufio.NewScanner(f)
	n, bad := 0, 0
	for sc.Scan() {
		w, s, _ := strings.Cut(sc.Text(), "\t")
		n++
		if got := Stem(w); got != s {
			bad++
			if bad < 30 {
				t.Errorf("Stem(%q) = %q, want %q", w, got, s)
			}
		}
	}
	t.Logf("stem: %d words, %d bad", n, bad)
	g, _ := os.Open("/tmp/proto/normx.jsonl")
	sc = bufio.NewScanner(g)
	sc.Buffer(nil, 1<<20)
	n, bad = 0, 0
	for sc.Scan() {
		var r struct{ In, Out string }
		json.Unmarshal(sc.Bytes(), &r)
		n++
		if got := NormalizeAnswer(r.In); got != r.Out {
			bad++
			if bad < 10 {
				t.Errorf("Normalize(%q) = %q, want %q", r.In, got, r.Out)
			}
		}
	}
	t.Logf("norm: %d, %d bad", n, bad)
	h, _ := os.Open("/tmp/proto/f1x.jsonl")
	sc = bufio.NewScanner(h)
	sc.Buffer(nil, 1<<20)
	n, bad = 0, 0
	for sc.Scan() {
		var r struct {
			Category         int
			Gold, Prediction string
			F1               float64
		}
		json.Unmarshal(sc.Bytes(), &r)
		n++
		got, err := F1(swc.Category(r.Category), r.Prediction, r.Gold)
		if err != nil || math.Abs(got-r.F1) > 1e-12 {
			bad++
			if bad < 10 {
				t.Errorf("F1(%d,%q,%q) = %v, want %v", r.Category, r.Prediction, r.Gold, got, r.F1)
			}
		}
	}
	t.Logf("f1: %d, %d bad", n, bad)
}
