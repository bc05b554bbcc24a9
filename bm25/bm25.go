// Package bm25 ranks short documents against a query with Okapi BM25, in
// memory. swc uses it where a question meets text: the support_recall@k
// metric of the benchmark (rank a context's lines), and question-time
// recall of archived turns (the swc-recall strategy). The service's SQLite
// FTS5 index ranks with the same function (FTS5's bm25() uses k1 = 1.2,
// b = 0.75, as here), so the two agree on what "relevant" means.
package bm25

import (
	"math"
	"sort"
)

// Default parameters, as Lucene and SQLite FTS5 use them.
const (
	DefaultK1 = 1.2
	DefaultB  = 0.75
)

// Index is a BM25 index over a fixed set of documents, each given as its
// terms (see Terms). Build it with New; it is safe for concurrent reads.
type Index struct {
	// K1 and B are the BM25 parameters (defaults DefaultK1, DefaultB).
	K1, B float64

	lens     []int32
	avgLen   float64
	postings map[string][]posting
}

type posting struct {
	doc int32
	tf  int32
}

// New indexes docs; docs[i] holds the terms of document i.
func New(docs [][]string) *Index {
	x := &Index{K1: DefaultK1, B: DefaultB, lens: make([]int32, len(docs)), postings: map[string][]posting{}}
	total := 0
	tf := map[string]int32{}
	for i, d := range docs {
		x.lens[i] = int32(len(d))
		total += len(d)
		clear(tf)
		for _, t := range d {
			tf[t]++
		}
		for t, n := range tf {
			x.postings[t] = append(x.postings[t], posting{doc: int32(i), tf: n})
		}
	}
	if len(docs) > 0 {
		x.avgLen = float64(total) / float64(len(docs))
	}
	return x
}

// Len returns the number of documents.
func (x *Index) Len() int { return len(x.lens) }

// IDF returns the inverse document frequency of term t, as Lucene computes
// it: ln(1 + (N − df + 0.5) / (df + 0.5)), always positive; 0 for a term in
// no document.
func (x *Index) IDF(t string) float64 { return IDF(len(x.lens), len(x.postings[t])) }

// IDF is the inverse document frequency of a term found in df of n
// documents: ln(1 + (n − df + 0.5) / (df + 0.5)); 0 when df is 0.
func IDF(n, df int) float64 {
	if df == 0 {
		return 0
	}
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// TermScore is one query term's contribution to a document's score: idf ·
// tf · (k1 + 1) / (tf + k1 · (1 − b + b · docLen / avgLen)).
func TermScore(idf, tf, docLen, avgLen, k1, b float64) float64 {
	return idf * tf * (k1 + 1) / (tf + k1*(1-b+b*docLen/avgLen))
}

// Scores returns the BM25 score of every document for query (its terms;
// a repeated query term counts once). Documents sharing no term with the
// query score 0.
func (x *Index) Scores(query []string) []float64 {
	out := make([]float64, len(x.lens))
	x.addScores(out, query)
	return out
}

func (x *Index) addScores(out []float64, query []string) {
	if x.avgLen == 0 {
		return
	}
	seen := make(map[string]bool, len(query))
	for _, t := range query {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := x.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := x.IDF(t)
		for _, p := range ps {
			out[p.doc] += TermScore(idf, float64(p.tf), float64(x.lens[p.doc]), x.avgLen, x.K1, x.B)
		}
	}
}

// Hit is one ranked document.
type Hit struct {
	Doc   int
	Score float64
}

// Top returns the k best documents for query with a positive score, best
// first; equal scores rank the earlier document first. k <= 0 returns
// every document with a positive score.
func (x *Index) Top(query []string, k int) []Hit {
	return TopOf(x.Scores(query), k)
}

// TopOf returns the k best positive entries of scores as hits, best first,
// ties to the lower index; k <= 0 returns them all.
func TopOf(scores []float64, k int) []Hit {
	var hits []Hit
	for i, s := range scores {
		if s > 0 {
			hits = append(hits, Hit{Doc: i, Score: s})
		}
	}
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].Score != hits[b].Score {
			return hits[a].Score > hits[b].Score
		}
		return hits[a].Doc < hits[b].Doc
	})
	if k > 0 && len(hits) > k {
		hits = hits[:k]
	}
	return hits
}
