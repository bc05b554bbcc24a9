package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
)

// The hand-made LoCoMo file and audit: q0 answer Max→Rex, q1 evidence
// only, q3 answer July→June.
var (
	handData  = filepath.Join("testdata", "gold", "locomo.json")
	handAudit = filepath.Join("testdata", "gold", "audit", "errors.json")
)

func TestLoadGold(t *testing.T) {
	all, _, err := locomo.LoadFile(handData)
	if err != nil {
		t.Fatal(err)
	}
	answer := func(convs []*swc.Conversation, i int) string { return convs[0].Questions[i].Answer }

	orig, err := LoadGold(GoldOptions{Gold: GoldOriginal, Audit: handAudit, Data: handData}, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(orig.SHA256) != 64 || orig.Entries != 3 || len(orig.Alt) != 3 || answer(orig.Conversations, 0) != "Max" || orig.Alt["g-1:q0"].Answer != "Rex" {
		t.Errorf("original: %+v", orig)
	}
	if !orig.Faults["g-1:q0"] || orig.Faults["g-1:q1"] {
		t.Errorf("faults %v: want q0's answer faulted, q1's evidence only", orig.Faults)
	}
	corr, err := LoadGold(GoldOptions{Gold: GoldCorrected, Audit: handAudit, Data: handData}, all)
	if err != nil {
		t.Fatal(err)
	}
	if answer(corr.Conversations, 0) != "Rex" || corr.Alt["g-1:q0"].Answer != "Max" || answer(all, 0) != "Max" {
		t.Errorf("corrected: scored %q, other %q; the input must be left as it was", answer(corr.Conversations, 0), corr.Alt["g-1:q0"].Answer)
	}

	// No audit beside the data: the original gold goes on without, the
	// corrected gold needs it and names where it looked.
	dir := t.TempDir()
	data := filepath.Join(dir, "locomo", "locomo10.json")
	os.MkdirAll(filepath.Dir(data), 0o755)
	b, _ := os.ReadFile(handData)
	os.WriteFile(data, b, 0o644)
	if s, err := LoadGold(GoldOptions{Gold: GoldOriginal, Data: data}, all); err != nil || s.SHA256 != "" || s.Alt != nil {
		t.Errorf("original without an audit: %+v, %v", s, err)
	}
	_, err = LoadGold(GoldOptions{Gold: GoldCorrected, Data: data}, all)
	if swc.ErrorCode(err) != swc.ENOTFOUND || !strings.Contains(err.Error(), filepath.Join(dir, "locomo-audit", "errors.json")) {
		t.Errorf("corrected without an audit: %v", err)
	}
	// An audit that does not fit the data: skipped with a reason under the
	// original gold when found by default, an error when named.
	os.MkdirAll(filepath.Join(dir, "locomo-audit"), 0o755)
	os.WriteFile(filepath.Join(dir, "locomo-audit", "errors.json"), []byte(`{"not": "a list"}`), 0o644)
	if s, err := LoadGold(GoldOptions{Gold: GoldOriginal, Data: data}, all); err != nil || !strings.Contains(s.Skipped, "does not fit this data") {
		t.Errorf("unfit audit: %+v, %v", s, err)
	}
	if _, err := LoadGold(GoldOptions{Gold: GoldOriginal, Data: data, Audit: filepath.Join(dir, "locomo-audit", "errors.json")}, all); err == nil {
		t.Error("an unfit --audit named explicitly loaded")
	}
}

// TestResumeAuditHash: a directory started before the audit was used
// goes on without the paired comparison, and says so.
func TestResumeAuditHash(t *testing.T) {
	s := &GoldSetup{SHA256: "abc", Alt: map[string]swc.Question{"q": {}}}
	dir := t.TempDir()
	if h, note := s.ResumeAuditHash(dir, GoldOriginal); h != "abc" || note != "" {
		t.Errorf("fresh directory: %q, %q", h, note)
	}
	os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"version": "0.1"}`), 0o644)
	if h, _ := s.ResumeAuditHash(dir, GoldCorrected); h != "abc" {
		t.Errorf("corrected gold: %q", h)
	}
	h, note := s.ResumeAuditHash(dir, GoldOriginal)
	if h != "" || !s.NoAlt || s.Alt != nil || !strings.Contains(note, "started without the LoCoMo audit") {
		t.Errorf("old directory: %q, %q, %+v", h, note, s)
	}
}
