package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/vector"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Hey! Wow, haha.", nil},
		{"I went to a LGBTQ support group yesterday.", []string{"went", "lgbtq", "support", "group", "yesterday"}},
		{"Caroline's paintings don't sell", []string{"carolin", "paint", "sell"}},
		{"I have 3 kids, born in 2019", []string{"3", "kid", "born", "2019"}},
		{"Café MÜNCHEN — naïve", []string{"café", "münchen", "naïv"}}, // NLTK stems non-ASCII words too,
		{"It’s O’Neil’s dog", []string{"oneil", "dog"}},
	}
	for _, tt := range tests {
		got := terms(tt.in)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("terms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEmbedWeights(t *testing.T) {
	// Stems: d0 {paint×2, dog}, d1 {dog}, d2 {} (stopwords only).
	texts := []string{"painting paintings dog", "the dog", "it is what it is"}
	vecs, err := New().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 3 || len(vecs[0]) != 2 {
		t.Fatalf("got %d vectors of dim %d, want 3 of dim 2", len(vecs), len(vecs[0]))
	}
	// N = 3. idf(paint) = ln(4/2)+1, idf(dog) = ln(4/3)+1.
	wp := (1 + math.Log(2)) * (math.Log(2) + 1)
	wd := math.Log(4.0/3) + 1
	n := math.Hypot(wp, wd)
	want := [][]float32{{float32(wp / n), float32(wd / n)}, {0, 1}, {0, 0}}
	for d := range want {
		for i := range want[d] {
			if math.Abs(float64(vecs[d][i]-want[d][i])) > 1e-6 {
				t.Errorf("vecs[%d][%d] = %v, want %v", d, i, vecs[d][i], want[d][i])
			}
		}
	}
}

func TestEmbedProperties(t *testing.T) {
	texts := syntheticTurns(200, 1)
	texts[17] = ""
	a, err := New().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two Embed calls on the same batch differ")
	}
	for d, v := range a {
		norm := math.Sqrt(vector.Dot(v, v))
		switch {
		case d == 17 && norm != 0:
			t.Errorf("empty text has norm %v, want 0", norm)
		case d != 17 && math.Abs(norm-1) > 1e-5:
			t.Errorf("vector %d has norm %v, want 1", d, norm)
		}
		if len(v) != len(a[0]) {
			t.Fatalf("vector %d has dim %d, want %d", d, len(v), len(a[0]))
		}
	}
	// Unit vectors: Dot is the cosine.
	if c, d := vector.Cosine(a[3], a[5]), vector.Dot(a[3], a[5]); math.Abs(c-d) > 1e-5 {
		t.Errorf("Cosine %v != Dot %v on unit vectors", c, d)
	}
}

func TestEmbedSimilarity(t *testing.T) {
	texts := []string{
		"I adopted a puppy from the shelter last week.",
		"How is your new puppy doing after the shelter adoption?",
		"The stock market fell sharply on Tuesday.",
	}
	v, err := New().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if related, unrelated := vector.Dot(v[0], v[1]), vector.Dot(v[0], v[2]); related <= unrelated || unrelated != 0 {
		t.Errorf("cos(puppy, puppy) = %v, cos(puppy, stocks) = %v; want the first higher and the second 0", related, unrelated)
	}
}

func TestEmbedEdgeCases(t *testing.T) {
	v, err := New().Embed(context.Background(), nil)
	if err != nil || len(v) != 0 {
		t.Errorf("Embed(nil) = %v, %v; want no vectors, no error", v, err)
	}
	v, err = New().Embed(context.Background(), []string{"", "the"})
	if err != nil || len(v) != 2 || len(v[0]) != 1 || v[0][0] != 0 || v[1][0] != 0 {
		t.Errorf("Embed(no vocabulary) = %v, %v; want two zero vectors of dim 1", v, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Embed(ctx, []string{"x"}); err == nil {
		t.Error("Embed with a cancelled context returned no error")
	}
}

func TestMinDF(t *testing.T) {
	texts := []string{"apple banana cherry", "apple durian", "elderberry"}
	full, _ := New().Embed(context.Background(), texts)
	pruned, _ := (&Lexical{MinDF: 2}).Embed(context.Background(), texts)
	if len(full[0]) != 5 || len(pruned[0]) != 1 {
		t.Fatalf("dims = %d, %d; want 5 (all stems) and 1 (only apple)", len(full[0]), len(pruned[0]))
	}
	if vector.Dot(pruned[0], pruned[1]) <= vector.Dot(full[0], full[1]) {
		t.Error("pruning unique stems did not raise the cosine of texts sharing a stem")
	}
	if n := (&Lexical{MinDF: 2}).Name(); n != "lexical-mindf=2" {
		t.Errorf("Name = %q", n)
	}
	if n := New().Name(); n != "lexical" {
		t.Errorf("Name = %q", n)
	}
}

// syntheticTurns returns n chat-like turns drawn from a Zipf-distributed
// vocabulary of 4,000 words, 8–40 words each.
func syntheticTurns(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, seed))
	z := rand.NewZipf(r, 1.1, 2, 3999)
	fill := []string{"the", "i", "and", "you", "it", "was", "so", "my"}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for w := range 8 + r.IntN(33) {
			if w%3 == 0 {
				b.WriteString(fill[r.IntN(len(fill))])
			} else {
				fmt.Fprintf(&b, "w%sing", strings.Repeat("x", int(z.Uint64()%5))+fmt.Sprint(z.Uint64()))
			}
			b.WriteByte(' ')
		}
		out[i] = b.String()
	}
	return out
}

func BenchmarkEmbed(b *testing.B) {
	for _, n := range []int{100, 600} {
		texts := syntheticTurns(n, 7)
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			l := New()
			var vecs [][]float32
			for b.Loop() {
				var err error
				if vecs, err = l.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(vecs[0])), "dims")
		})
	}
}

// locomoTurns returns, per LoCoMo conversation, the texts of its turns in
// order, and the session each turn belongs to.
func locomoTurns(t testing.TB) (convs [][]string, sessions [][]int) {
	data, err := os.ReadFile(locomotest.Need(t))
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, c := range raw {
		var texts []string
		var sess []int
		for s := 1; ; s++ {
			msg, ok := c.Conversation[fmt.Sprintf("session_%d", s)]
			if !ok {
				break
			}
			var turns []struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(msg, &turns); err != nil {
				t.Fatal(err)
			}
			for _, tu := range turns {
				texts = append(texts, tu.Text)
				sess = append(sess, s-1)
			}
		}
		convs = append(convs, texts)
		sessions = append(sessions, sess)
	}
	return convs, sessions
}

// TestLoCoMoScale embeds every LoCoMo conversation and computes the
// downstream-similarity workload (each session's mean vector against every
// later turn), logging vocabulary sizes, times and cosine ranges.
func TestLoCoMoScale(t *testing.T) {
	convs, sessions := locomoTurns(t)
	for _, minDF := range []int{1, 2} {
		l := &Lexical{MinDF: minDF}
		var embedT, simT time.Duration
		var sims []float64
		maxDim := 0
		for ci, texts := range convs {
			start := time.Now()
			vecs, err := l.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			embedT += time.Since(start)
			maxDim = max(maxDim, len(vecs[0]))
			start = time.Now()
			nSess := sessions[ci][len(texts)-1] + 1
			for s := range nSess {
				var mine [][]float32
				first := -1
				for i, si := range sessions[ci] {
					if si == s {
						mine = append(mine, vecs[i])
					} else if si > s && first < 0 {
						first = i
					}
				}
				if first < 0 {
					continue
				}
				chunk := vector.MeanNormalized(mine)
				for _, v := range vecs[first:] {
					sims = append(sims, vector.Dot(chunk, v))
				}
			}
			simT += time.Since(start)
		}
		sort.Float64s(sims)
		q := func(p float64) float64 { return sims[int(p*float64(len(sims)-1))] }
		t.Logf("min_df=%d: max dim %d; embed 10 convs %v; %d chunk×later-turn dots %v; cosine p50 %.3f p90 %.3f p99 %.3f max %.3f",
			minDF, maxDim, embedT, len(sims), simT, q(.5), q(.9), q(.99), q(1))
		if q(1) > 1+1e-5 || q(0) < -1e-5 {
			t.Errorf("cosines out of [0, 1]: min %v max %v", q(0), q(1))
		}
	}
}

// TestEmbedSparseEqualsEmbed: EmbedSparse is Embed's vectors without the
// zeros, value for value, with and without MinDF.
func TestEmbedSparseEqualsEmbed(t *testing.T) {
	batches := [][]string{syntheticTurns(300, 7), {"", "the a of", "Rex the dog", "dog dog dog"}, nil}
	for _, minDF := range []int{0, 2} {
		l := &Lexical{MinDF: minDF}
		for bi, texts := range batches {
			dense, err := l.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			sparse, err := l.EmbedSparse(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			if len(sparse) != len(dense) {
				t.Fatalf("batch %d: %d sparse vectors for %d dense", bi, len(sparse), len(dense))
			}
			for i := range dense {
				want := vector.ToSparse(dense[i])
				if !slices.Equal(sparse[i].Index, want.Index) || !slices.Equal(sparse[i].Value, want.Value) {
					t.Fatalf("min-df %d, batch %d, text %d: sparse %v, dense %v", minDF, bi, i, sparse[i], want)
				}
			}
		}
	}
	if _, err := New().EmbedSparse(canceled(), []string{"x"}); err == nil {
		t.Errorf("a done context gave no error")
	}
}

func canceled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
