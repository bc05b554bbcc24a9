// Package embed holds swc's built-in embedder: Lexical, a TF-IDF model
// fitted on the batch of texts it is given, which needs no model file and
// no network. The maths over its vectors (Dot, Cosine, MeanNormalized) is
// in package vector.
package embed

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	swc "github.com/swcmem/swc"
)

// Lexical is the offline default embedder (Name "lexical"). Each Embed call
// fits a TF-IDF model on the texts it receives — for swc, the turns of one
// conversation — and returns one L2-normalised vector per text, so the dot
// product of two vectors is their cosine similarity.
//
// Terms are Porter stems (package porter, NLTK's variant) of lowercased Unicode letter/digit words, minus a
// small English and chat-filler stopword list (see textTerms). Weights are
// sublinear tf times smoothed idf, as scikit-learn's TfidfVectorizer with
// sublinear_tf=True, smooth_idf=True:
//
//	w(t, d) = (1 + ln tf(t, d)) · (ln((1 + N) / (1 + df(t))) + 1)
//
// The vocabulary is every stem occurring in at least MinDF texts of the
// batch, numbered in order of first occurrence; vectors are dense, of that
// length (at least 1). A text with no vocabulary term (empty, only
// stopwords) gets a zero vector. The result depends only on the batch, so
// it is deterministic.
type Lexical struct {
	// MinDF is the smallest number of texts a stem must occur in to enter
	// the vocabulary (scikit-learn's min_df). The default (0 or 1) keeps
	// every stem, which is exact TF-IDF. 2 drops stems unique to one text:
	// they can never match another text, so dot products keep their
	// numerators, the vectors get much shorter, and cosines rise because
	// the unique words no longer count in the norms.
	MinDF int
}

var _ swc.Embedder = (*Lexical)(nil)

// New returns a Lexical embedder with the default settings.
func New() *Lexical { return &Lexical{} }

// Name returns "lexical", or "lexical-mindf=N" when MinDF > 1 (the name is
// part of cache keys, and MinDF changes the vectors).
func (l *Lexical) Name() string {
	if l.MinDF > 1 {
		return fmt.Sprintf("lexical-mindf=%d", l.MinDF)
	}
	return "lexical"
}

// Embed returns one vector per text, in order, all of the same length. It
// returns an error only when ctx is done.
func (l *Lexical) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f, err := l.fit(ctx, texts)
	if err != nil {
		return nil, err
	}
	defer f.release()
	dim := max(f.dim, 1)
	slab := make([]float32, len(texts)*dim)
	out := make([][]float32, len(texts))
	for d := range f.docs {
		v := slab[d*dim : (d+1)*dim : (d+1)*dim]
		out[d] = v
		f.weigh(d, func(c int32, w float32) { v[c] = w })
	}
	return out, nil
}

// EmbedSparse returns Embed's vectors as their non-zero entries, in index
// order, without building the dense forms. It returns an error only when
// ctx is done.
func (l *Lexical) EmbedSparse(ctx context.Context, texts []string) ([]swc.Sparse, error) {
	f, err := l.fit(ctx, texts)
	if err != nil {
		return nil, err
	}
	defer f.release()
	n := 0
	for _, ps := range f.docs {
		n += len(ps)
	}
	idx, val := make([]int32, 0, n), make([]float32, 0, n) // one slab each
	out := make([]swc.Sparse, len(texts))
	for d := range f.docs {
		start := len(idx)
		f.weigh(d, func(c int32, w float32) {
			idx = append(idx, c)
			val = append(val, w)
		})
		out[d] = swc.Sparse{Index: idx[start:len(idx):len(idx)], Value: val[start:len(val):len(val)]}
	}
	return out, nil
}

var _ swc.SparseEmbedder = (*Lexical)(nil)

// sublinear returns 1 + ln tf, from a table for the usual small counts
// (the same values: the table holds math.Log's).
func sublinear(tf int32) float64 {
	if tf < int32(len(sublinearTable)) {
		return sublinearTable[tf]
	}
	return 1 + math.Log(float64(tf))
}

var sublinearTable = func() (t [64]float64) {
	for i := range t {
		t[i] = 1 + math.Log(float64(i))
	}
	return t
}()

// sortPostings sorts ps by term id: by insertion for a turn's few terms.
func sortPostings(ps []posting) {
	if len(ps) > 32 {
		slices.SortFunc(ps, func(a, b posting) int { return int(a.id - b.id) })
		return
	}
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].id < ps[j-1].id; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// posting is a term of a text and how often it occurs there.
type posting struct {
	id int32
	tf int32
}

// fitted is a TF-IDF model fitted on a batch: each text's postings in
// term-id order, each term's column (-1: below MinDF) and idf.
type fitted struct {
	docs  [][]posting
	col   []int32
	idf   []float64
	dim   int
	terms [][]termCount // scratch: each text's terms
	slab  []posting     // scratch: the array under docs
	df    []int32       // scratch: each term's document frequency
}

// fit fits the model on texts. It returns an error only when ctx is done.
func (l *Lexical) fit(ctx context.Context, texts []string) (*fitted, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: lexical: %w", err)
	}
	f := fits.Get().(*fitted)
	f.terms = f.terms[:0]
	total := 0
	for d, text := range texts {
		if d%256 == 255 {
			if err := ctx.Err(); err != nil {
				f.release()
				return nil, fmt.Errorf("embed: lexical: %w", err)
			}
		}
		tcs := textTerms(text)
		f.terms = append(f.terms, tcs)
		total += len(tcs)
	}
	voc := vocabs.Get().(*vocab)
	defer voc.release()
	f.docs = f.docs[:0]
	f.slab = slices.Grow(f.slab[:0], total)[:total] // every text's postings, one array
	f.df = f.df[:0]
	slab := f.slab
	for _, tcs := range f.terms {
		ps := slab[:len(tcs):len(tcs)]
		slab = slab[len(tcs):]
		for i, tc := range tcs {
			id := voc.id(tc.term)
			if int(id) == len(f.df) {
				f.df = append(f.df, 0)
			}
			f.df[id]++
			ps[i] = posting{id, tc.tf}
		}
		sortPostings(ps)
		f.docs = append(f.docs, ps)
	}

	// Number the kept stems densely, in order of first occurrence.
	f.col = slices.Grow(f.col[:0], len(f.df))[:len(f.df)]
	f.dim = 0
	for id, n := range f.df {
		if int(n) >= max(l.MinDF, 1) {
			f.col[id] = int32(f.dim)
			f.dim++
		} else {
			f.col[id] = -1
		}
	}
	f.idf = slices.Grow(f.idf[:0], len(f.df))[:len(f.df)]
	nDocs := float64(len(texts))
	for id, n := range f.df {
		f.idf[id] = math.Log((1+nDocs)/(1+float64(n))) + 1
	}
	return f, nil
}

// fits holds fitted models for reuse: their slices are an Embed call's
// biggest allocations after the result.
var fits = sync.Pool{New: func() any { return new(fitted) }}

// release returns f to fits; f must not be used after.
func (f *fitted) release() {
	clear(f.terms) // let the texts' terms go
	fits.Put(f)
}

// weigh calls set with the column and weight of each kept term of text d,
// in column order (columns follow term ids): sublinear tf times idf, the
// text's vector scaled to unit length. A text with no kept term gets no
// call.
func (f *fitted) weigh(d int, set func(col int32, w float32)) {
	ps := f.docs[d]
	var norm float64
	for _, p := range ps {
		if f.col[p.id] < 0 {
			continue
		}
		w := sublinear(p.tf) * f.idf[p.id]
		norm += w * w
	}
	if norm == 0 {
		return
	}
	inv := 1 / math.Sqrt(norm)
	for _, p := range ps {
		if c := f.col[p.id]; c >= 0 {
			set(c, float32(sublinear(p.tf)*f.idf[p.id]*inv))
		}
	}
}
