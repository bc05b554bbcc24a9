package evalfile

import (
	"context"
	"strings"
	"testing"

	"github.com/swcmem/swc/bench"
)

func TestPredictions(t *testing.T) {
	rows := `{"id":"a","question":"When did Ana swim?","answer":"7 May 2023","prediction":"May 7, 2023","category":2,"system":"x"}
{"id":"b","question":"Who came?","answer":"Caroline, Melanie","prediction":"Melanie","category":1}

{"id":"c","question":"Where?","answer":2022,"prediction":"in 2022","category":"4"}
{"id":"d","question":"What cat?","prediction":"Not mentioned in the conversation","category":5}
`
	ps, err := ReadPredictions(strings.NewReader(rows), "pred.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ScorePredictions(context.Background(), ps, nil, bench.JudgePrompt, 1, 100, 42)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 0.5, 2.0 / 3, 1} // "in 2022" vs "2022": P 1/2, R 1
	for i, p := range ps {
		if p.Fields["f1"] != want[i] {
			t.Errorf("row %d f1 = %v, want %v", i, p.Fields["f1"], want[i])
		}
	}
	if ps[0].Fields["system"] != "x" || ps[0].Fields["id"] != "a" {
		t.Errorf("input fields not kept: %v", ps[0].Fields)
	}
	if s := sum.Categories["1-4"]["f1"]; s.N != 3 || s.Mean < 0.72 || s.Mean > 0.73 {
		t.Errorf("1-4 summary %+v", s)
	}
	if sum.Rows != 4 || sum.Categories["5"]["f1"].N != 1 {
		t.Errorf("summary %+v", sum)
	}
}

func TestPredictionErrors(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`{"question":"q","answer":"a","category":2}`, `pred.jsonl:1: missing field "prediction"`},
		{`{"question":"q","answer":"a","prediction":"p","category":7}`, "category must be 1–5"},
		{`{"question":"q","prediction":"p","category":2}`, `missing field "answer"`},
		{`{"question":"q","answer":"a","prediction":null,"category":2}`, "pred.jsonl:1: prediction: want a string answer, found null"},
		{`not json`, "not a JSON object"},
		{``, "no rows"},
	} {
		if _, err := ReadPredictions(strings.NewReader(tt.body), "pred.jsonl"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.body, err, tt.want)
		}
	}
}
