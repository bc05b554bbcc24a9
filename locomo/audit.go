package locomo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/swcmem/swc"
)

// The LoCoMo audit (the public repository dial481/locomo-audit, CC BY-NC
// 4.0) lists questions of locomo10.json whose gold answer or cited evidence
// is wrong, in a file errors.json. It is read from where the user keeps
// it, never embedded.

// AuditFileName is the audit's file name; DefaultAuditPath looks for it.
const AuditFileName = "errors.json"

// ErrorWrongCitation is the audit's error type for a question whose answer
// is right and whose evidence is wrong. Every other type faults the answer.
const ErrorWrongCitation = "WRONG_CITATION"

// Correction is one entry of the audit's errors.json.
type Correction struct {
	// QuestionID is "locomo_<conversation>_qa<question>", both 0-based
	// positions in locomo10.json.
	QuestionID      string   `json:"question_id"`
	Question        string   `json:"question"`
	GoldenAnswer    string   `json:"golden_answer"`
	CorrectAnswer   string   `json:"correct_answer"`
	CitedEvidence   []string `json:"cited_evidence"`
	CorrectEvidence []string `json:"correct_evidence"`
	Category        int      `json:"category"`
	ErrorType       string   `json:"error_type"`
	Reasoning       string   `json:"reasoning"`
}

// AnswerWrong reports whether the audit faults the gold answer itself (every
// error type but WRONG_CITATION); only then is CorrectAnswer a replacement
// (for WRONG_CITATION it often carries a remark after the answer).
func (c Correction) AnswerWrong() bool { return c.ErrorType != ErrorWrongCitation }

// DefaultAuditPath returns where the audit's errors.json is looked for when
// the LoCoMo data is dataPath: DIR/../locomo-audit/errors.json beside the
// data's directory (the layout data/locomo/locomo10.json,
// data/locomo-audit/errors.json). It returns "" for dataPath "".
func DefaultAuditPath(dataPath string) string {
	if dataPath == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(filepath.Dir(dataPath)), "locomo-audit", AuditFileName)
}

// LoadCorrections reads an audit errors.json. It returns an *swc.Error:
// ENOTFOUND naming the path when there is no file, EINVALID naming the
// entry and field when the file is malformed or an id repeats.
func LoadCorrections(path string) ([]Correction, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, swc.Errorf(swc.ENOTFOUND, "locomo: audit: no errors file at %s (the LoCoMo audit's %s; pass its path)", path, AuditFileName)
	} else if err != nil {
		return nil, swc.Errorf(swc.EINVALID, "locomo: audit: %v", err)
	}
	return ParseCorrections(data, filepath.Base(path))
}

// ParseCorrections decodes an audit errors.json held in memory; name is
// used in messages. See LoadCorrections.
func ParseCorrections(data []byte, name string) ([]Correction, error) {
	bad := func(format string, args ...any) error {
		return swc.Errorf(swc.EINVALID, "locomo: audit: %s: %s", name, fmt.Sprintf(format, args...))
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return nil, bad("top level must be a JSON list of corrections")
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(trimmed, &raws); err != nil {
		return nil, bad("%v", err)
	}
	out := make([]Correction, 0, len(raws))
	seen := map[string]int{}
	for i, raw := range raws {
		var c Correction
		if err := json.Unmarshal(raw, &c); err != nil {
			var ute *json.UnmarshalTypeError
			if errors.As(err, &ute) {
				return nil, bad("entry %d: field %q: want %s, found JSON %s", i, ute.Field, ute.Type, ute.Value)
			}
			return nil, bad("entry %d: %v", i, err)
		}
		if _, _, ok := AuditPosition(c.QuestionID); !ok {
			return nil, bad("entry %d: question_id %q is not locomo_<conversation>_qa<question>", i, c.QuestionID)
		}
		if c.ErrorType == "" {
			return nil, bad("entry %d (%s): missing error_type", i, c.QuestionID)
		}
		if c.AnswerWrong() && c.CorrectAnswer == "" {
			return nil, bad("entry %d (%s): error_type %s without a correct_answer", i, c.QuestionID, c.ErrorType)
		}
		if j, dup := seen[c.QuestionID]; dup {
			return nil, bad("entry %d: question_id %s repeats entry %d", i, c.QuestionID, j)
		}
		seen[c.QuestionID] = i
		out = append(out, c)
	}
	return out, nil
}

var auditID = regexp.MustCompile(`^locomo_(\d+)_qa(\d+)$`)

// AuditPosition parses an audit question id "locomo_<c>_qa<q>" into the
// 0-based conversation and question positions; ok is false for any other
// string.
func AuditPosition(id string) (conv, question int, ok bool) {
	m := auditID.FindStringSubmatch(id)
	if m == nil {
		return 0, 0, false
	}
	c, err1 := strconv.Atoi(m[1])
	q, err2 := strconv.Atoi(m[2])
	return c, q, err1 == nil && err2 == nil
}

// Corrected is LoCoMo with the audit's corrections applied.
type Corrected struct {
	// Conversations are copies of the input with the corrections applied;
	// the input is left as it was.
	Conversations []*swc.Conversation
	// Fixes maps a question id (as the loader makes them, "conv:qN") to the
	// correction applied to it.
	Fixes map[string]Correction
	// Answers counts questions whose gold answer was replaced; Evidence,
	// those whose evidence was.
	Answers, Evidence int
	// Warnings name corrected evidence turns the conversation lacks
	// (dropped, as the loader drops unknown evidence).
	Warnings []Warning
}

// ApplyCorrections applies cs to convs, which must be the whole of the
// LoCoMo file the audit was made on, in file order (audit ids are
// positions). A correction replaces the evidence of its question, and its
// gold answer when AnswerWrong. It returns an *swc.Error (EINVALID) when a
// correction names a position the data lacks or a question whose text
// differs from the data's (a sign of another data file).
func ApplyCorrections(convs []*swc.Conversation, cs []Correction) (*Corrected, error) {
	out := &Corrected{Conversations: make([]*swc.Conversation, len(convs)), Fixes: map[string]Correction{}}
	for i, c := range convs {
		cc := *c
		cc.Questions = append([]swc.Question(nil), c.Questions...)
		out.Conversations[i] = &cc
	}
	for _, fix := range cs {
		ci, qi, ok := AuditPosition(fix.QuestionID)
		if !ok || ci >= len(convs) || qi >= len(convs[ci].Questions) {
			return nil, swc.Errorf(swc.EINVALID, "locomo: audit: %s: no such question in the data (%d conversations); the audit is of locomo10.json", fix.QuestionID, len(convs))
		}
		c := out.Conversations[ci]
		q := &c.Questions[qi]
		if fix.Question != "" && !sameText(fix.Question, q.Question) {
			return nil, swc.Errorf(swc.EINVALID, "locomo: audit: %s: question %q differs from the data's %q; the audit is of locomo10.json", fix.QuestionID, fix.Question, q.Question)
		}
		if fix.AnswerWrong() {
			q.Answer = fix.CorrectAnswer
			out.Answers++
		}
		turns := map[string]bool{}
		for _, s := range c.Sessions {
			for _, t := range s.Turns {
				turns[t.ID] = true
			}
		}
		var ev []string
		for _, e := range fix.CorrectEvidence {
			if !turns[e] {
				out.Warnings = append(out.Warnings, Warning{Sample: c.ID, Field: fix.QuestionID + ".correct_evidence", Msg: fmt.Sprintf("names unknown turn %q (ignored)", e)})
				continue
			}
			ev = append(ev, e)
		}
		q.Evidence = ev
		out.Evidence++
		out.Fixes[q.ID] = fix
	}
	return out, nil
}

func sameText(a, b string) bool {
	return string(bytes.Join(bytes.Fields([]byte(a)), []byte(" "))) == string(bytes.Join(bytes.Fields([]byte(b)), []byte(" ")))
}
