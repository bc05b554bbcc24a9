package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc/internal/locomotest"
)

var (
	preserveConvs = filepath.Join("..", "..", "preserve", "testdata", "conversations.json")
	preserveGists = filepath.Join("..", "..", "preserve", "testdata", "gists.jsonl")
)

type preserveJSON struct {
	Conditions []string `json:"conditions"`
	Types      map[string]struct {
		Variants map[string]struct {
			Found     int      `json:"found"`
			Preserved int      `json:"preserved"`
			Rate      float64  `json:"rate"`
			ValueRate *float64 `json:"value_rate"`
		} `json:"variants"`
	} `json:"types"`
	PerConversation []struct {
		Conversation string `json:"conversation"`
	} `json:"per_conversation"`
	Examples map[string]map[string][]struct {
		Mention  string `json:"mention"`
		Sentence string `json:"sentence"`
		Gist     string `json:"gist"`
	} `json:"examples"`
	Ratios []struct {
		Type, Variant, Baseline string
		Rate                    *float64
	} `json:"ratios"`
}

func TestPreserveSampleJSON(t *testing.T) {
	out, stderr, err := run(t, nil, "preserve", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var doc preserveJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := strings.Join(doc.Conditions, ","); got != "swc-full,swc-temporal,swc-anchored,sliding,sliding-temporal" {
		t.Errorf("conditions = %s", got)
	}
	tv := doc.Types["temporal"].Variants
	full, temp := tv["swc-full"], tv["swc-temporal"]
	if full.Found == 0 || temp.Rate <= full.Rate {
		t.Errorf("temporal: swc-full %+v, swc-temporal %+v; want found > 0 and a higher swc-temporal rate", full, temp)
	}
	if full.Found != temp.Found {
		t.Errorf("temporal found differs: %d vs %d", full.Found, temp.Found)
	}
	if temp.ValueRate == nil || doc.Types["entity"].Variants["swc-full"].ValueRate != nil {
		t.Error("value_rate must be set for temporal only")
	}
	if len(doc.PerConversation) != 1 {
		t.Errorf("per_conversation = %d entries", len(doc.PerConversation))
	}
	ex := doc.Examples["temporal"]["swc-full"]
	if len(ex) == 0 || ex[0].Sentence == "" || ex[0].Gist == "" {
		t.Errorf("swc-full temporal examples = %+v", ex)
	}
	found := false
	for _, r := range doc.Ratios {
		if r.Type == "temporal" && r.Variant == "swc-temporal" && r.Baseline == "swc-full" && r.Rate != nil && *r.Rate > 1 {
			found = true
		}
	}
	if !found {
		t.Errorf("no temporal swc-temporal/swc-full ratio > 1 in %+v", doc.Ratios)
	}
	if !strings.Contains(stderr, "gists of 1 conversation audited") {
		t.Errorf("stderr = %q", stderr)
	}
}

func TestPreserveExternalText(t *testing.T) {
	dir := t.TempDir()
	out, _, err := run(t, nil, "preserve", "--data", preserveConvs, "--gists", preserveGists, "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"generic     temporal     summary",
		"temporal            0/6 0.00%   3/5 60.00%  1/5 20.00%",
		"temporal (value)    0/6 0.00%  5/5 100.00%  2/5 40.00%",
		"ratios: temporal ÷ generic ×0.75; summary ÷ generic ×0.75",
		"tiny-2",
		`tiny-1 D1:1 (session 1): "yesterday" [relative, 2023-05-07, 7 May 2023]`,
		"source: Ana: I went to Lisbon yesterday.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	js, err := os.ReadFile(filepath.Join(dir, "preservation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc preserveJSON
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if c := doc.Types["event"].Variants["generic"]; c.Found != 6 || c.Preserved != 5 {
		t.Errorf("preservation.json event/generic = %+v", c)
	}
	md, err := os.ReadFile(filepath.Join(dir, "preservation.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(md), "# Preservation of mentions in gists") || !strings.Contains(string(md), "| temporal | 0/6 0.00% | 3/5 60.00% | 1/5 20.00% |") {
		t.Errorf("preservation.md:\n%s", md)
	}
	// --conversations keeps only the named conversations' gists.
	out, _, err = run(t, nil, "preserve", "--data", preserveConvs, "--gists", preserveGists, "--conversations", "tiny-2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.PerConversation) != 1 || doc.PerConversation[0].Conversation != "tiny-2" || strings.Join(doc.Conditions, ",") != "generic" {
		t.Errorf("--conversations tiny-2: %+v", doc)
	}
}

func TestPreserveErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"conversation": "tiny-1", "session": 7, "variant": "v", "gist": "g"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"preserve", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"preserve", "--examples", "-1"}, 2, "--examples"},
		{[]string{"preserve", "--conditions", "nope"}, 2, `unknown strategy "nope"`},
		{[]string{"preserve", "--gists", filepath.Join(dir, "missing.jsonl")}, 1, "missing.jsonl"},
		{[]string{"preserve", "--data", preserveConvs, "--gists", bad}, 1, "session 7 out of range"},
		{[]string{"preserve", "--conversations", "nope"}, 1, `no conversation "nope"`},
		{[]string{"preserve", "--gists", preserveGists, "--gister", "extractive"}, 2, "--gister does not apply with --gists"},
	}
	for _, tt := range tests {
		_, _, err := run(t, nil, tt.args...)
		if err == nil || exitCode(err) != tt.code || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v (exit %d), want exit %d containing %q", tt.args, err, exitCode(err), tt.code, tt.want)
		}
	}
}

func TestPreserveLoCoMo(t *testing.T) {
	path := locomotest.Wide(t)
	out, stderr, err := run(t, nil, "preserve", "--data", path, "--json", "--examples", "0")
	if err != nil {
		t.Fatal(err)
	}
	var doc preserveJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.PerConversation) != 10 {
		t.Errorf("%d conversations", len(doc.PerConversation))
	}
	tv := doc.Types["temporal"].Variants
	if tv["swc-temporal"].Rate <= tv["swc-full"].Rate {
		t.Errorf("temporal rates: %+v", tv)
	}
	if n := len(doc.Examples["temporal"]["swc-full"]); n != 0 {
		t.Errorf("--examples 0 gave %d examples", n)
	}
	t.Log(strings.TrimSpace(stderr))
}
