package bm25

import (
	"math"
	"reflect"
	"testing"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"When did Caroline go to the LGBTQ support group?", []string{"carolin", "go", "lgbtq", "support", "group"}},
		{"Melanie's kids painted 5 sunsets", []string{"melani", "kid", "paint", "5", "sunset"}},
		{"I don't know, a B c", []string{"know"}},
		{"", nil},
		{"Café déjà-vu", []string{"café", "déjà", "vu"}},
	}
	for _, tt := range tests {
		if got := Terms(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestScoresByHand(t *testing.T) {
	docs := [][]string{{"cat", "sat"}, {"dog", "sat", "dog"}, {"bird"}}
	x := New(docs)
	// N=3, avgdl=2. "dog": df=1, idf=ln(1+2.5/1.5); doc 1: tf=2, len=3.
	idf := math.Log(1 + 2.5/1.5)
	norm := 1.2 * (1 - 0.75 + 0.75*3.0/2.0)
	want := idf * 2 * 2.2 / (2 + norm)
	got := x.Scores([]string{"dog", "dog"})
	if math.Abs(got[1]-want) > 1e-12 || got[0] != 0 || got[2] != 0 {
		t.Errorf("Scores(dog) = %v, want [0 %v 0]", got, want)
	}
	if x.IDF("fish") != 0 {
		t.Errorf("IDF of an absent term = %v, want 0", x.IDF("fish"))
	}
}

func TestTop(t *testing.T) {
	docs := [][]string{
		{"paint", "sunset"},
		{"paint", "lake", "sunset", "sunset"},
		{"swim", "lake"},
		{"paint", "sunset"},
	}
	x := New(docs)
	tests := []struct {
		q    []string
		k    int
		want []int
	}{
		{[]string{"sunset"}, 0, []int{1, 0, 3}},
		{[]string{"sunset"}, 2, []int{1, 0}},
		{[]string{"lake"}, 5, []int{2, 1}},
		{[]string{"nothing"}, 5, nil},
	}
	for _, tt := range tests {
		var got []int
		for _, h := range x.Top(tt.q, tt.k) {
			got = append(got, h.Doc)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Top(%v, %d) = %v, want %v", tt.q, tt.k, got, tt.want)
		}
	}
	if New(nil).Top([]string{"x"}, 3) != nil {
		t.Error("an empty index returned hits")
	}
}
