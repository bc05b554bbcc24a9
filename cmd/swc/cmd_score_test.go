package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc/bench/evalfile"
)

func TestScore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pred.jsonl")
	rows := `{"id":"a","question":"When did Ana swim?","answer":"7 May 2023","prediction":"May 7, 2023","category":2,"system":"x"}
{"id":"b","question":"Who came?","answer":"Caroline, Melanie","prediction":"Melanie","category":1}

{"id":"c","question":"Where?","answer":2022,"prediction":"in 2022","category":"4"}
{"id":"d","question":"What cat?","prediction":"Not mentioned in the conversation","category":5}
`
	if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, nil, "score", "--pred", path, "--json", "--resamples", "100")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Rows    []map[string]any           `json:"rows"`
		Summary evalfile.PredictionSummary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 0.5, 2.0 / 3, 1} // "in 2022" vs "2022": P 1/2, R 1
	for i, r := range got.Rows {
		if r["f1"] != want[i] {
			t.Errorf("row %d f1 = %v, want %v", i, r["f1"], want[i])
		}
	}
	if got.Rows[0]["system"] != "x" || got.Rows[0]["id"] != "a" {
		t.Errorf("input fields not kept: %v", got.Rows[0])
	}
	if s := got.Summary.Categories["1-4"]["f1"]; s.N != 3 || s.Mean < 0.72 || s.Mean > 0.73 {
		t.Errorf("1-4 summary %+v", s)
	}
	for _, tt := range []struct{ body, want string }{
		{`{"question":"q","answer":"a","category":2}`, `pred.jsonl:1: missing field "prediction"`},
	} {
		if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := run(t, nil, "score", "--pred", path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.body, err, tt.want)
		}
	}
	if _, _, err := run(t, nil, "score"); err == nil || exitCode(err) != 2 {
		t.Errorf("score without --pred: %v", err)
	}
}
