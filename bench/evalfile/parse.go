// Package evalfile reads the files in which memory systems publish their
// LoCoMo answers, and swc score's JSONL prediction rows, and scores them
// with LoCoMo's F1 (and a judge) against LoCoMo's questions.
//
// Mem0's, MemOS's and EverMemOS's evaluation harnesses write the same
// per-question records:
//
//	{"detailed_results": {"<run or user>": [{"question_id", "question",
//	  "golden_answer", "generated_answer", "category",
//	  "llm_judgments": {"judgment_1": true, …}}, …]}, …}
//
// and MemOS's per-user files are that inner map without the wrapper
// (answers in "response"); Mem0's evals.py writes the same map keyed by
// conversation index with one verdict, "llm_score" (0 or 1). The
// category is a string ("4") or a number, and harnesses number categories
// differently, so rows are mapped to LoCoMo's questions by question_id
// ("locomo_<conversation>_qa<question>", 0-based positions) or by question
// text, and scored under LoCoMo's category.
package evalfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
)

// acceptedShapes says which inputs score reads, for the unknown-shape error.
const acceptedShapes = `JSONL rows {"question", "answer", "prediction", "category"}, ` +
	`or a Mem0/MemOS/EverMemOS evaluation file {"detailed_results": {"<run or user>": [{"question_id", "question", "golden_answer", "generated_answer", "category", "llm_judgments"}]}} ` +
	`(or its inner {"<user>": [...]} map)`

// CheckShape rejects, naming the accepted shapes, input that is
// neither an evaluation file nor JSONL prediction rows: a JSON list, or a
// single JSON object with neither "prediction" nor "question".
func CheckShape(data []byte, name string) error {
	t := bytes.TrimSpace(data)
	var one map[string]json.RawMessage
	switch {
	case len(t) > 0 && t[0] == '[':
	case json.Unmarshal(t, &one) == nil && one["prediction"] == nil && one["question"] == nil:
	default:
		return nil
	}
	return swc.Errorf(swc.EINVALID, "%s: unknown shape; accepted: %s", name, acceptedShapes)
}

// Row is one record of an evaluation file. Parse makes them; Match maps
// them to LoCoMo questions; Score scores them and adds its figures to
// Fields.
type Row struct {
	Fields map[string]any // the record as read, and what Score adds

	group, where   string // the run or user key; "detailed_results[\"u\"][3]"
	id, question   string
	fileGold       string
	answer         string
	label          string // the file's category label, as written
	judgments      []float64
	hasID          bool
	matched        *swc.Question
	alt            *swc.Question // the question under the other gold, if audited
	answerFaulted  bool
	judgeErr       string
	verdict        string
	judge, altJudg float64
	judged         bool
	altJudged      bool
}

// Parse reads an evaluation file held in memory. ok is false when
// data is not one (the caller then tries JSONL); a file that is one but is
// malformed returns an error naming the record and field.
func Parse(data []byte, name string) (rows []*Row, ok bool, err error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil, false, nil
	}
	groups := top
	prefix := ""
	if dr, has := top["detailed_results"]; has {
		groups = nil // a fresh map: Unmarshal merges into an existing one
		if err := json.Unmarshal(dr, &groups); err != nil {
			return nil, true, swc.Errorf(swc.EINVALID, "%s: detailed_results must be an object of run or user → list of records", name)
		}
		prefix = "detailed_results"
	} else {
		// A bare {"<user>": [records]} map: every value a list of objects.
		if len(top) == 0 {
			return nil, false, nil
		}
		for _, v := range top {
			var recs []map[string]json.RawMessage
			if json.Unmarshal(v, &recs) != nil || len(recs) == 0 || recs[0]["question"] == nil {
				return nil, false, nil
			}
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return naturalLess(keys[i], keys[j]) })
	for _, g := range keys {
		var recs []json.RawMessage
		if err := json.Unmarshal(groups[g], &recs); err != nil {
			return nil, true, swc.Errorf(swc.EINVALID, "%s: %s[%q]: want a list of records", name, prefix, g)
		}
		for i, raw := range recs {
			where := fmt.Sprintf("%s[%q][%d]", prefix, g, i)
			if prefix == "" {
				where = fmt.Sprintf("[%q][%d]", g, i)
			}
			r, err := parseRow(raw, g, where)
			if err != nil {
				return nil, true, swc.Errorf(swc.EINVALID, "%s: %v", name, err)
			}
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, true, swc.Errorf(swc.EINVALID, "%s: no records", name)
	}
	return rows, true, nil
}

func parseRow(raw json.RawMessage, group, where string) (*Row, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var f map[string]any
	if err := dec.Decode(&f); err != nil || f == nil {
		return nil, fmt.Errorf("%s: not a JSON object", where)
	}
	r := &Row{group: group, where: where, Fields: f}
	q, ok := f["question"].(string)
	if !ok || strings.TrimSpace(q) == "" {
		return nil, fmt.Errorf("%s.question: want a non-empty string, found %s", where, kindOf(f["question"]))
	}
	r.question = strings.TrimSpace(q)
	answerKey := "generated_answer"
	if _, has := f[answerKey]; !has {
		if _, has := f["response"]; has { // MemOS's name for it
			answerKey = "response"
		}
	}
	a, ok := f[answerKey].(string)
	if !ok {
		return nil, fmt.Errorf("%s.%s: want a string answer, found %s", where, answerKey, kindOf(f[answerKey]))
	}
	r.answer = strings.TrimSpace(a)
	if v, has := f["question_id"]; has && v != nil {
		id, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s.question_id: want a string, found %s", where, kindOf(v))
		}
		r.id, r.hasID = strings.TrimSpace(id), true
	}
	for _, k := range []string{"golden_answer", "answer"} {
		if v, has := f[k]; has {
			r.fileGold = text(v)
			break
		}
	}
	switch c := f["category"].(type) {
	case nil:
	case string:
		r.label = strings.TrimSpace(c)
	case json.Number:
		r.label = c.String()
	default:
		return nil, fmt.Errorf("%s.category: want a string or number, found %s", where, kindOf(c))
	}
	if v, has := f["llm_score"]; has && f["llm_judgments"] == nil { // Mem0's evals.py: one verdict
		x, err := verdictValue(v)
		if err != nil {
			return nil, fmt.Errorf("%s.llm_score: %v", where, err)
		}
		r.judgments = []float64{x}
	}
	if j, has := f["llm_judgments"]; has && j != nil {
		m, ok := j.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s.llm_judgments: want an object of verdicts, found %s", where, kindOf(j))
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, err := verdictValue(m[k])
			if err != nil {
				return nil, fmt.Errorf("%s.llm_judgments.%s: %v", where, k, err)
			}
			r.judgments = append(r.judgments, v)
		}
	}
	return r, nil
}

// verdictValue reads one harness verdict: true/false, 1/0, or the labels
// CORRECT/WRONG (or YES/NO).
func verdictValue(v any) (float64, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case json.Number:
		if f, err := x.Float64(); err == nil && (f == 0 || f == 1) {
			return f, nil
		}
	case string:
		switch strings.ToUpper(strings.TrimSpace(x)) {
		case "CORRECT", "YES", "TRUE":
			return 1, nil
		case "WRONG", "INCORRECT", "NO", "FALSE":
			return 0, nil
		}
	}
	return 0, fmt.Errorf("want true/false, 1/0 or CORRECT/WRONG, found %s", kindOf(v))
}

func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", x)
	case json.Number:
		return "number " + x.String()
	case bool:
		return "boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

var trailingNumber = regexp.MustCompile(`(\d+)$`)

// naturalLess orders "user_2" before "user_10".
func naturalLess(a, b string) bool {
	ma, mb := trailingNumber.FindString(a), trailingNumber.FindString(b)
	if ma != "" && mb != "" && strings.TrimSuffix(a, ma) == strings.TrimSuffix(b, mb) {
		na, _ := strconv.Atoi(ma)
		nb, _ := strconv.Atoi(mb)
		return na < nb
	}
	return a < b
}

func normQuestion(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// match maps every row to a LoCoMo question of convs (the whole file,
// in file order): by question_id when it names a position whose question
// has the row's text, else by question text (unique in the data, or unique
// within the conversation the row's group number names). Rows that match
// nothing stay unmatched. Two rows with one question_id, or mapping to one
// question, are an EINVALID error.
func match(rows []*Row, convs []*swc.Conversation) error {
	type ref struct {
		q    *swc.Question
		conv int
	}
	byText := map[string][]ref{}
	for ci, c := range convs {
		for qi := range c.Questions {
			q := &c.Questions[qi]
			byText[normQuestion(q.Question)] = append(byText[normQuestion(q.Question)], ref{q, ci})
		}
	}
	seenID := map[string]string{}
	taken := map[string]string{}
	for _, r := range rows {
		if r.hasID && r.id != "" {
			if prev, dup := seenID[r.id]; dup {
				return swc.Errorf(swc.EINVALID, "duplicate question_id %q at %s and %s", r.id, prev, r.where)
			}
			seenID[r.id] = r.where
		}
		var hit *ref
		if ci, qi, ok := locomo.AuditPosition(r.id); ok && ci < len(convs) && qi < len(convs[ci].Questions) {
			if q := &convs[ci].Questions[qi]; normQuestion(q.Question) == normQuestion(r.question) {
				hit = &ref{q, ci}
			}
		}
		if hit == nil {
			cands := byText[normQuestion(r.question)]
			if len(cands) > 1 {
				// Ambiguous text: the group's or id's number may name the conversation.
				var narrowed []ref
				if m := trailingNumber.FindString(r.group); m != "" {
					n, _ := strconv.Atoi(m)
					for _, c := range cands {
						if c.conv == n {
							narrowed = append(narrowed, c)
						}
					}
				}
				cands = narrowed
			}
			if len(cands) == 1 {
				hit = &cands[0]
			}
		}
		if hit == nil {
			continue
		}
		if prev, dup := taken[hit.q.ID]; dup {
			return swc.Errorf(swc.EINVALID, "%s and %s both map to LoCoMo question %s (%q)", prev, r.where, hit.q.ID, hit.q.Question)
		}
		taken[hit.q.ID] = r.where
		r.matched = hit.q
	}
	return nil
}
