// Package longmemeval reads the LongMemEval benchmark (Wu et al., ICLR
// 2025; github.com/xiaowu0162/LongMemEval, MIT) into swc's domain types:
// one conversation per question, holding that question's haystack of
// timestamped user/assistant sessions. The files (longmemeval_s, _m and
// _oracle, one shape) are decoded element by element, so a 2.7 GB file is
// never held whole.
package longmemeval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/swcmem/swc"
)

// The two speakers of every conversation: LongMemEval's roles, as they are.
const (
	User      = "user"
	Assistant = "assistant"
)

// Types lists LongMemEval's question types in report order. An abstention
// question (its id ends in "_abs") also has one of them.
var Types = []string{
	"single-session-user", "single-session-assistant", "single-session-preference",
	"multi-session", "knowledge-update", "temporal-reasoning",
}

// AbstentionSuffix ends the id of an abstention question, whose right
// answer is that the history does not tell.
const AbstentionSuffix = "_abs"

// DateLayout is the layout of haystack_dates and question_date
// ("2023/05/20 (Sat) 02:21"); times are read as UTC.
const DateLayout = "2006/01/02 (Mon) 15:04"

// MaxTurnBytes is the largest turn text the loader accepts.
const MaxTurnBytes = 1 << 20

type rawQuestion struct {
	QuestionID         *string         `json:"question_id"`
	QuestionType       string          `json:"question_type"`
	Question           *string         `json:"question"`
	Answer             json.RawMessage `json:"answer"`
	QuestionDate       string          `json:"question_date"`
	HaystackDates      []string        `json:"haystack_dates"`
	HaystackSessionIDs []string        `json:"haystack_session_ids"`
	HaystackSessions   [][]rawTurn     `json:"haystack_sessions"`
	AnswerSessionIDs   []string        `json:"answer_session_ids"`
}

type rawTurn struct {
	Role      string  `json:"role"`
	Content   *string `json:"content"`
	HasAnswer bool    `json:"has_answer"`
}

// LoadFile reads a whole LongMemEval file. Errors are *swc.Error with code
// EINVALID (ENOTFOUND for a missing file) naming the file, the question
// and the field at fault.
func LoadFile(path string) ([]*swc.Conversation, error) {
	var out []*swc.Conversation
	err := ScanFile(path, func(c *swc.Conversation) error {
		out = append(out, c)
		return nil
	})
	return out, err
}

// ScanFile calls fn with the conversation of each question of the file at
// path, in file order, holding one at a time (see Scan).
func ScanFile(path string, fn func(*swc.Conversation) error) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return swc.Errorf(swc.ENOTFOUND, "longmemeval: %s: no such file", path)
	} else if err != nil {
		return swc.Errorf(swc.EINVALID, "longmemeval: %s: %v", path, err)
	}
	defer f.Close()
	return Scan(f, filepath.Base(path), fn)
}

// Read is LoadFile for a reader; name is used in messages.
func Read(r io.Reader, name string) ([]*swc.Conversation, error) {
	var out []*swc.Conversation
	err := Scan(r, name, func(c *swc.Conversation) error {
		out = append(out, c)
		return nil
	})
	return out, err
}

// Scan decodes the JSON array of r one question at a time and calls fn
// with its conversation, in order; it returns fn's first error as is, or
// an EINVALID error naming name, the question and the field at fault. A
// question id seen twice is an error.
func Scan(r io.Reader, name string, fn func(*swc.Conversation) error) error {
	bad := func(format string, args ...any) error {
		return swc.Errorf(swc.EINVALID, "longmemeval: %s: %s", name, fmt.Sprintf(format, args...))
	}
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err == io.EOF {
		return bad("file is empty")
	} else if err != nil {
		return bad("%v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return bad("top level must be a JSON list of questions")
	}
	seen := map[string]int{}
	i := 0
	for ; dec.More(); i++ {
		var raw rawQuestion
		if err := dec.Decode(&raw); err != nil {
			return bad("question %d: %v", i, err)
		}
		c, err := convert(&raw)
		if err != nil {
			return bad("question %d: %v", i, err)
		}
		if j, dup := seen[c.ID]; dup {
			return bad("question %d: question_id %q repeats question %d", i, c.ID, j)
		}
		seen[c.ID] = i
		if err := fn(c); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return bad("after question %d: %v", i-1, err)
	}
	if i == 0 {
		return bad("the list of questions is empty")
	}
	return nil
}

// convert turns one question into its conversation.
func convert(raw *rawQuestion) (*swc.Conversation, error) {
	if raw.QuestionID == nil || *raw.QuestionID == "" {
		return nil, errors.New("question_id is missing")
	}
	id := *raw.QuestionID
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", id, fmt.Sprintf(format, args...))
	}
	if raw.Question == nil {
		return nil, bad("question is missing")
	}
	if !slices.Contains(Types, raw.QuestionType) {
		return nil, bad("question_type %q is none of %s", raw.QuestionType, strings.Join(Types, ", "))
	}
	answer, err := answerText(raw.Answer)
	if err != nil {
		return nil, bad("answer: %v", err)
	}
	asked, err := time.Parse(DateLayout, raw.QuestionDate)
	if err != nil {
		return nil, bad("question_date %q is not like %q", raw.QuestionDate, DateLayout)
	}
	n := len(raw.HaystackSessions)
	if n == 0 {
		return nil, bad("haystack_sessions is empty")
	}
	if len(raw.HaystackDates) != n {
		return nil, bad("haystack_dates has %d dates for %d sessions", len(raw.HaystackDates), n)
	}
	if len(raw.HaystackSessionIDs) != n {
		return nil, bad("haystack_session_ids has %d ids for %d sessions", len(raw.HaystackSessionIDs), n)
	}
	// Sessions go in time order (the files do not always list them so);
	// sort.Stable keeps the file's order among equal dates.
	order := make([]int, n)
	starts := make([]time.Time, n)
	for i, d := range raw.HaystackDates {
		order[i] = i
		if starts[i], err = time.Parse(DateLayout, d); err != nil {
			return nil, bad("haystack_dates[%d] %q is not like %q", i, d, DateLayout)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return starts[a].Compare(starts[b]) })
	c := &swc.Conversation{ID: id, SpeakerA: User, SpeakerB: Assistant, Sessions: make([]swc.Session, n)}
	q := swc.Question{
		ID: id, Question: *raw.Question, Answer: answer, Type: raw.QuestionType,
		Abstention: strings.HasSuffix(id, AbstentionSuffix), Date: asked,
	}
	// haystack session id → its Session.Index values: LongMemEval_S lists
	// a few sessions twice, at two dates (13 of the 498 questions read
	// here), and each is a session the history holds.
	bySessionID := map[string][]int{}
	for idx, i := range order {
		sid := raw.HaystackSessionIDs[i]
		bySessionID[sid] = append(bySessionID[sid], idx)
		s := swc.Session{Index: idx, Start: starts[i], DateText: raw.HaystackDates[i], Turns: make([]swc.Turn, 0, len(raw.HaystackSessions[i]))}
		for j, t := range raw.HaystackSessions[i] {
			field := fmt.Sprintf("haystack_sessions[%d][%d]", i, j)
			if t.Role != User && t.Role != Assistant {
				return nil, bad("%s: role %q is neither %q nor %q", field, t.Role, User, Assistant)
			}
			if t.Content == nil {
				return nil, bad("%s: content is missing", field)
			}
			if len(*t.Content) > MaxTurnBytes {
				return nil, bad("%s: content has %d bytes, more than %d", field, len(*t.Content), MaxTurnBytes)
			}
			tid := TurnID(idx, len(s.Turns))
			s.Turns = append(s.Turns, swc.Turn{ID: tid, Speaker: t.Role, Text: *t.Content})
			if t.HasAnswer {
				q.Evidence = append(q.Evidence, tid)
			}
		}
		c.Sessions[idx] = s
	}
	if len(q.Evidence) == 0 { // no turn marked: every turn of the answer sessions
		var idxs []int
		for _, sid := range raw.AnswerSessionIDs {
			at, ok := bySessionID[sid]
			if !ok {
				return nil, bad("answer_session_ids: %q is not a haystack session", sid)
			}
			idxs = append(idxs, at...)
		}
		slices.Sort(idxs)
		for _, idx := range slices.Compact(idxs) {
			for _, t := range c.Sessions[idx].Turns {
				q.Evidence = append(q.Evidence, t.ID)
			}
		}
	}
	c.Questions = []swc.Question{q}
	return c, nil
}

// TurnID returns the id of turn j (from 0) of session i (from 0): "S1:1"
// is the first turn of the first session in time order, as LoCoMo's
// "D1:1".
func TurnID(session, turn int) string { return fmt.Sprintf("S%d:%d", session+1, turn+1) }

// answerText returns a JSON string's text or a number's digits ("4").
func answerText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", errors.New("is missing")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("is neither a string nor a number: %.40s", raw)
}

// Detect reports whether r holds LongMemEval data: a JSON array whose
// first element is an object with "haystack_sessions". It reads the array's
// first element only; anything else (LoCoMo, invalid JSON) is false.
func Detect(r io.Reader) bool {
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return false
	}
	if !dec.More() {
		return false
	}
	var first map[string]json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return false
	}
	_, ok := first["haystack_sessions"]
	return ok
}

// DetectFile is Detect on the file at path; false when it cannot be read.
func DetectFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return Detect(f)
}
