package chat

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCodecs: every request format has a codec registered under its own
// format, only Anthropic asks for user-aligned kept messages, and the
// other formats have none.
func TestCodecs(t *testing.T) {
	for _, tc := range []struct {
		f     Format
		codec bool
		align bool
	}{
		{OpenAI, true, false},
		{Anthropic, true, true},
		{Responses, true, false},
		{Gemini, true, false},
		{Interactions, true, false},
		{JSONL, false, false},
		{LoCoMo, false, false},
		{Auto, false, false},
	} {
		c, ok := CodecOf(tc.f)
		if ok != tc.codec {
			t.Errorf("%s: codec %v, want %v", tc.f, ok, tc.codec)
			continue
		}
		if !ok {
			continue
		}
		if c.Format() != tc.f || c.AlignUser() != tc.align {
			t.Errorf("%s: codec of %s, align %v (want %v)", tc.f, c.Format(), c.AlignUser(), tc.align)
		}
	}
}

// TestSpliceNotARequest: a message array (no body) and a format without
// a codec are refused with an error naming the problem.
func TestSpliceNotARequest(t *testing.T) {
	in, err := Parse([]byte(`[{"role":"user","content":"hi"}]`), OpenAI)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Splice(in, Output{Source: []int{0}}); err == nil || !strings.Contains(err.Error(), "not a request body") {
		t.Errorf("a message array: %v", err)
	}
	in, err = Parse([]byte(`{"time":"2024-01-01T00:00:00Z","speaker":"a","text":"hi"}`), JSONL)
	if err != nil {
		t.Fatal(err)
	}
	in.Body = map[string]json.RawMessage{}
	if _, err := Splice(in, Output{}); err == nil || !strings.Contains(err.Error(), "cannot splice messages into a jsonl input") {
		t.Errorf("jsonl: %v", err)
	}
}
