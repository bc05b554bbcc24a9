// Package locomo reads conversations in the format of the LoCoMo benchmark
// (locomo10.json, https://github.com/snap-research/locomo, CC BY-NC 4.0)
// into swc's domain types, and embeds a small sample conversation written
// for this project.
package locomo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/swcmem/swc"
)

// Warning is a problem in the data that does not stop it from being used,
// such as evidence naming a turn that does not exist.
type Warning struct {
	Sample string // sample_id
	Field  string // e.g. "qa[12].evidence"
	Msg    string
}

func (w Warning) String() string { return fmt.Sprintf("%s: %s: %s", w.Sample, w.Field, w.Msg) }

// MaxTurnBytes is the largest turn text the loader accepts.
const MaxTurnBytes = 1 << 20

// LoadFile reads a LoCoMo JSON file. It returns an *swc.Error with code
// EINVALID (ENOTFOUND for a missing file) whose message names the file, the
// sample and the field at fault; usable oddities come back as warnings.
func LoadFile(path string) ([]*swc.Conversation, []Warning, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, swc.Errorf(swc.ENOTFOUND, "locomo: %s: no such file", path)
	} else if err != nil {
		return nil, nil, swc.Errorf(swc.EINVALID, "locomo: %s: %v", path, err)
	}
	return Parse(data, filepath.Base(path))
}

// Read is LoadFile for a reader; name is used in messages.
func Read(r io.Reader, name string) ([]*swc.Conversation, []Warning, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, swc.Errorf(swc.EINVALID, "locomo: %s: %v", name, err)
	}
	return Parse(data, name)
}

type rawSample struct {
	SampleID     json.RawMessage            `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []rawQA                    `json:"qa"`
}

type rawTurn struct {
	Speaker *string         `json:"speaker"`
	DiaID   *string         `json:"dia_id"`
	Text    *string         `json:"text"`
	ImgURL  json.RawMessage `json:"img_url"`
	Caption string          `json:"blip_caption"`
	Query   string          `json:"query"`
}

type rawQA struct {
	Question    *string         `json:"question"`
	Answer      json.RawMessage `json:"answer"`
	Adversarial json.RawMessage `json:"adversarial_answer"`
	Evidence    json.RawMessage `json:"evidence"`
	Category    json.RawMessage `json:"category"`
}

// Parse decodes LoCoMo JSON held in memory; see LoadFile.
func Parse(data []byte, name string) ([]*swc.Conversation, []Warning, error) {
	bad := func(format string, args ...any) error {
		return swc.Errorf(swc.EINVALID, "locomo: %s: %s", name, fmt.Sprintf(format, args...))
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, nil, bad("file is empty")
	}
	if !utf8.Valid(trimmed) {
		return nil, nil, bad("file is not valid UTF-8")
	}
	if !json.Valid(trimmed) {
		var v any
		return nil, nil, bad("%s", describeJSONError(trimmed, json.Unmarshal(trimmed, &v)))
	}
	if trimmed[0] != '[' {
		return nil, nil, bad("top level must be a JSON list of samples, found %s", jsonKind(trimmed[0]))
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(trimmed, &raws); err != nil {
		return nil, nil, bad("%s", describeJSONError(trimmed, err))
	}
	if len(raws) == 0 {
		return nil, nil, bad("the list of samples is empty")
	}
	var (
		convs []*swc.Conversation
		warns []Warning
		seen  = map[string]int{}
	)
	for i, raw := range raws {
		c, w, err := parseSample(raw, i)
		if err != nil {
			return nil, nil, bad("%v", err)
		}
		if j, dup := seen[c.ID]; dup {
			return nil, nil, bad("sample %d: sample_id %q repeats sample %d", i, c.ID, j)
		}
		seen[c.ID] = i
		convs = append(convs, c)
		warns = append(warns, w...)
	}
	return convs, warns, nil
}

func parseSample(raw json.RawMessage, idx int) (*swc.Conversation, []Warning, error) {
	var rs rawSample
	if err := json.Unmarshal(raw, &rs); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			if ute.Field == "" {
				return nil, nil, fmt.Errorf("sample %d: want an object with sample_id, conversation and qa, found %s", idx, jsonValueName(ute.Value))
			}
			return nil, nil, fmt.Errorf("sample %d: field %q: want %s, found %s", idx, ute.Field, typeName(ute.Type), jsonValueName(ute.Value))
		}
		return nil, nil, fmt.Errorf("sample %d: %v", idx, err)
	}
	id := scalarString(rs.SampleID)
	if id == "" {
		id = fmt.Sprintf("sample-%d", idx)
	}
	where := fmt.Sprintf("sample %d (%s)", idx, id)
	if rs.Conversation == nil {
		return nil, nil, fmt.Errorf("%s: missing field \"conversation\"", where)
	}
	c := &swc.Conversation{ID: id}
	for _, k := range []string{"speaker_a", "speaker_b"} {
		var s string
		if err := json.Unmarshal(rs.Conversation[k], &s); err != nil || strings.TrimSpace(s) == "" {
			return nil, nil, fmt.Errorf("%s: conversation.%s: missing or not a string", where, k)
		}
		if k == "speaker_a" {
			c.SpeakerA = s
		} else {
			c.SpeakerB = s
		}
	}
	sessions, err := parseSessions(rs.Conversation, where)
	if err != nil {
		return nil, nil, err
	}
	c.Sessions = sessions
	var warns []Warning
	for i, s := range c.Sessions {
		// Rendered headers number sessions by position; say so when the
		// file's own numbers (and so its D<N>: turn ids) skip some.
		if len(s.Turns) > 0 && !strings.HasPrefix(s.Turns[0].ID, fmt.Sprintf("D%d:", i+1)) {
			warns = append(warns, Warning{Sample: c.ID, Field: "conversation", Msg: fmt.Sprintf(
				"session numbers are not 1, 2, 3, …: turn %s is in the %s session, shown as \"Session %d\"", s.Turns[0].ID, ordinal(i+1), i+1)})
			break
		}
	}
	turnIDs := map[string]bool{}
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			if turnIDs[t.ID] {
				return nil, nil, fmt.Errorf("%s: session %d: duplicate dia_id %q", where, s.Index+1, t.ID)
			}
			turnIDs[t.ID] = true
		}
	}
	for i, q := range rs.QA {
		qq, w, err := parseQA(q, i, c.ID, turnIDs)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", where, err)
		}
		c.Questions = append(c.Questions, qq)
		warns = append(warns, w...)
	}
	return c, warns, nil
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

func parseSessions(conv map[string]json.RawMessage, where string) ([]swc.Session, error) {
	var nums []int
	for k := range conv {
		if m := sessionKey.FindStringSubmatch(k); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%s: conversation.%s: bad session number", where, k)
			}
			nums = append(nums, n)
		}
	}
	if len(nums) == 0 {
		return nil, fmt.Errorf("%s: conversation has no session_N fields", where)
	}
	sort.Ints(nums) // by N, not by key order: session_10 after session_9
	out := make([]swc.Session, 0, len(nums))
	for i, n := range nums {
		key := fmt.Sprintf("session_%d", n)
		var dateText string
		if err := json.Unmarshal(conv[key+"_date_time"], &dateText); err != nil || dateText == "" {
			return nil, fmt.Errorf("%s: conversation.%s_date_time: missing or not a string", where, key)
		}
		start, err := ParseDate(dateText)
		if err != nil {
			return nil, fmt.Errorf("%s: conversation.%s_date_time: %v", where, key, err)
		}
		var rts []rawTurn
		if err := json.Unmarshal(conv[key], &rts); err != nil {
			return nil, fmt.Errorf("%s: conversation.%s: want a list of turns: %v", where, key, err)
		}
		if len(rts) == 0 {
			return nil, fmt.Errorf("%s: conversation.%s: session has no turns", where, key)
		}
		s := swc.Session{Index: i, Start: start, DateText: dateText, Turns: make([]swc.Turn, 0, len(rts))}
		for j, rt := range rts {
			t, err := parseTurn(rt)
			if err != nil {
				return nil, fmt.Errorf("%s: conversation.%s[%d]: %v", where, key, j, err)
			}
			s.Turns = append(s.Turns, t)
		}
		out = append(out, s)
	}
	return out, nil
}

func parseTurn(rt rawTurn) (swc.Turn, error) {
	switch {
	case rt.DiaID == nil || strings.TrimSpace(*rt.DiaID) == "":
		return swc.Turn{}, errors.New("missing dia_id")
	case rt.Speaker == nil || strings.TrimSpace(*rt.Speaker) == "":
		return swc.Turn{}, fmt.Errorf("turn %s: missing speaker", *rt.DiaID)
	case rt.Text == nil:
		return swc.Turn{}, fmt.Errorf("turn %s: missing text", *rt.DiaID)
	case len(*rt.Text) > MaxTurnBytes:
		return swc.Turn{}, fmt.Errorf("turn %s: text is %d bytes, more than the %d allowed", *rt.DiaID, len(*rt.Text), MaxTurnBytes)
	}
	t := swc.Turn{ID: strings.TrimSpace(*rt.DiaID), Speaker: strings.TrimSpace(*rt.Speaker), Text: strings.TrimSpace(*rt.Text)}
	var urls []string
	if len(rt.ImgURL) > 0 && string(rt.ImgURL) != "null" {
		if err := json.Unmarshal(rt.ImgURL, &urls); err != nil {
			var one string
			if json.Unmarshal(rt.ImgURL, &one) != nil {
				return swc.Turn{}, fmt.Errorf("turn %s: img_url: want a list of strings", t.ID)
			}
			urls = []string{one}
		}
	}
	if len(urls) > 0 || rt.Caption != "" {
		t.Image = &swc.Image{URLs: urls, Caption: rt.Caption, Query: rt.Query}
	}
	if t.Text == "" && t.Image == nil {
		return swc.Turn{}, fmt.Errorf("turn %s: empty text", t.ID)
	}
	return t, nil
}

func parseQA(q rawQA, i int, convID string, turns map[string]bool) (swc.Question, []Warning, error) {
	field := fmt.Sprintf("qa[%d]", i)
	if q.Question == nil || strings.TrimSpace(*q.Question) == "" {
		return swc.Question{}, nil, fmt.Errorf("%s: missing question", field)
	}
	var cat int
	if err := json.Unmarshal(q.Category, &cat); err != nil || !swc.Category(cat).Valid() {
		return swc.Question{}, nil, fmt.Errorf("%s.category: want 1–5, found %s", field, orMissing(q.Category))
	}
	qq := swc.Question{
		ID:                fmt.Sprintf("%s:q%d", convID, i),
		Question:          strings.TrimSpace(*q.Question),
		Answer:            scalarString(q.Answer),
		AdversarialAnswer: scalarString(q.Adversarial),
		Category:          swc.Category(cat),
	}
	if qq.Answer == "" && qq.Category != swc.Adversarial {
		return swc.Question{}, nil, fmt.Errorf("%s.answer: missing", field)
	}
	ev, err := parseEvidence(q.Evidence)
	if err != nil {
		return swc.Question{}, nil, fmt.Errorf("%s.evidence: %v", field, err)
	}
	var warns []Warning
	for _, e := range ev {
		if !turns[e] {
			warns = append(warns, Warning{Sample: convID, Field: field + ".evidence", Msg: fmt.Sprintf("names unknown turn %q (ignored)", e)})
			continue
		}
		qq.Evidence = append(qq.Evidence, e)
	}
	return qq, warns, nil
}

var evidenceID = regexp.MustCompile(`D:?(\d+):0*(\d+)`)

// parseEvidence reads the evidence list, repairing LoCoMo's known typos:
// several ids in one string ("D8:6; D9:17"), "D:11:26", "D30:05".
func parseEvidence(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var items []string
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, errors.New("want a list of turn ids")
	}
	var out []string
	for _, it := range items {
		ms := evidenceID.FindAllStringSubmatch(it, -1)
		if ms == nil {
			out = append(out, strings.TrimSpace(it)) // reported as unknown
			continue
		}
		for _, m := range ms {
			out = append(out, "D"+m[1]+":"+m[2])
		}
	}
	return out, nil
}

// scalarString renders a JSON string or number as text ("" for null/absent).
func scalarString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return strings.TrimSpace(string(raw))
}

func orMissing(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	return string(raw)
}

func jsonKind(b byte) string {
	switch {
	case b == '{':
		return "an object"
	case b == '"':
		return "a string"
	case b == 't' || b == 'f':
		return "a boolean"
	case b == 'n':
		return "null"
	case b == '-' || (b >= '0' && b <= '9'):
		return "a number"
	}
	return "text that is not JSON"
}

// typeName says in words what JSON a Go type decodes from, so that
// messages never show internal type names.
func typeName(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Name() == "RawMessage" {
			return "a value"
		}
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a value"
}

// jsonValueName turns json.UnmarshalTypeError's Value ("number", "array",
// "object", "string", "bool", "number 1.5") into words.
func jsonValueName(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	switch kind {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "number":
		return "a number"
	case "null":
		return "null"
	}
	return v
}

// describeJSONError turns a decoding error into "invalid JSON at line L,
// column C: …".
func describeJSONError(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var ute *json.UnmarshalTypeError
	switch {
	case strings.Contains(err.Error(), "unexpected end of JSON"):
		return fmt.Sprintf("invalid JSON: the file ends early, at line %d (byte %d), inside an unclosed list, object or string (truncated?)", 1+bytes.Count(data, []byte{'\n'}), len(data))
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &ute):
		off = ute.Offset
	}
	if off < 0 {
		return "invalid JSON: " + err.Error()
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("invalid JSON at line %d, column %d (byte %d): %v", line, col, off, err)
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
