package preserve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/swcmem/swc"
)

// ExternalGist is one gist made outside swc, a line of a --gists file:
//
//	{"conversation": "conv-26", "session": 3, "variant": "my-llm", "gist": "…"}
//
// Conversation is a sample id or a 0-based position (a JSON string or
// number). Session is the 0-based session index as swc numbers them (LoCoMo
// session_1, turn ids D1:…, is session 0); a summary of several sessions
// lists them in Sessions instead. The gist stands for every turn of its
// sessions, unless Turns names the turn ids it condenses.
type ExternalGist struct {
	Conversation string   `json:"conversation"`
	Session      *int     `json:"session,omitempty"`
	Sessions     []int    `json:"sessions,omitempty"`
	Turns        []string `json:"turns,omitempty"`
	Variant      string   `json:"variant"`
	Gist         string   `json:"gist"`
}

// UnmarshalJSON accepts the conversation as a string or a number.
func (g *ExternalGist) UnmarshalJSON(b []byte) error {
	type plain ExternalGist
	var raw struct {
		plain
		Conversation json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*g = ExternalGist(raw.plain)
	c := bytes.TrimSpace(raw.Conversation)
	switch {
	case len(c) == 0 || string(c) == "null":
	case c[0] == '"':
		if err := json.Unmarshal(c, &g.Conversation); err != nil {
			return err
		}
	default:
		n, err := strconv.Atoi(string(c))
		if err != nil {
			return fmt.Errorf("conversation %s is neither a string nor a whole number", c)
		}
		g.Conversation = strconv.Itoa(n)
	}
	return nil
}

// ReadExternal reads a JSONL file of ExternalGist records (blank lines are
// skipped). It returns an EINVALID error naming the line of the first
// malformed or incomplete record.
func ReadExternal(r io.Reader, name string) ([]ExternalGist, error) {
	var out []ExternalGist
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var g ExternalGist
		if err := json.Unmarshal(b, &g); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "%s:%d: %v", name, line, err)
		}
		switch {
		case g.Conversation == "":
			return nil, swc.Errorf(swc.EINVALID, "%s:%d: no \"conversation\"", name, line)
		case strings.TrimSpace(g.Variant) == "":
			return nil, swc.Errorf(swc.EINVALID, "%s:%d: no \"variant\"", name, line)
		case g.Session == nil && len(g.Sessions) == 0 && len(g.Turns) == 0:
			return nil, swc.Errorf(swc.EINVALID, "%s:%d: no \"session\" (0-based index), \"sessions\" or \"turns\"", name, line)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("preserve: read %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, swc.Errorf(swc.EINVALID, "%s: no gist records", name)
	}
	return out, nil
}

// FromExternal audits gists made elsewhere against convs, with variants in
// the order they first appear. It returns ENOTFOUND for an unknown
// conversation and EINVALID for a session or turn the conversation lacks
// or for two gists of the same variant and source.
func FromExternal(convs []*swc.Conversation, records []ExternalGist) (*Report, error) {
	return FromExternalWith(convs, records, Options{})
}

// FromExternalWith is FromExternal with options.
func FromExternalWith(convs []*swc.Conversation, records []ExternalGist, opts Options) (*Report, error) {
	var order []string
	gists := map[string]map[string][]swc.GistRecord{}
	seen := map[string]bool{}
	for i, rec := range records {
		where := fmt.Sprintf("gist %d (%s, variant %s)", i+1, rec.Conversation, rec.Variant)
		c := swc.FindConversation(convs, rec.Conversation)
		if c == nil {
			return nil, swc.Errorf(swc.ENOTFOUND, "%s: no conversation %q", where, rec.Conversation)
		}
		g, err := externalRecord(c, rec)
		if err != nil {
			return nil, swc.Errorf(swc.EINVALID, "%s: %s", where, swc.ErrorMessage(err))
		}
		key := fmt.Sprint(rec.Variant, "\x00", c.ID, "\x00", g.Turns)
		if seen[key] {
			return nil, swc.Errorf(swc.EINVALID, "%s: a second gist of the same variant and source", where)
		}
		seen[key] = true
		if gists[rec.Variant] == nil {
			gists[rec.Variant] = map[string][]swc.GistRecord{}
			order = append(order, rec.Variant)
		}
		gists[rec.Variant][c.ID] = append(gists[rec.Variant][c.ID], g)
	}
	return analyze(convs, order, gists, opts), nil
}

// externalRecord turns rec into the GistRecord it stands for.
func externalRecord(c *swc.Conversation, rec ExternalGist) (swc.GistRecord, error) {
	g := swc.GistRecord{Variant: swc.GistVariant(rec.Variant), Text: rec.Gist, InContext: true}
	sessions := slices.Clone(rec.Sessions)
	if rec.Session != nil {
		sessions = append([]int{*rec.Session}, sessions...)
	}
	slices.Sort(sessions)
	sessions = slices.Compact(sessions)
	for _, s := range sessions {
		if s < 0 || s >= len(c.Sessions) {
			return g, swc.Errorf(swc.EINVALID, "session %d out of range (0–%d)", s, len(c.Sessions)-1)
		}
	}
	g.Sessions = sessions
	if len(rec.Turns) > 0 {
		for _, id := range rec.Turns {
			if _, ok := c.Turn(id); !ok {
				return g, swc.Errorf(swc.EINVALID, "no turn %q", id)
			}
		}
		g.Turns = slices.Clone(rec.Turns)
		if len(g.Sessions) == 0 {
			g.Sessions = turnSessions(c, g.Turns)
		}
		return g, nil
	}
	for _, s := range sessions {
		for _, t := range c.Sessions[s].Turns {
			g.Turns = append(g.Turns, t.ID)
		}
	}
	return g, nil
}

// findConversation returns the conversation with the sample id, or at the
// 0-based position, id; nil when there is none.
// turnSessions returns the sorted session indexes the turns belong to.
func turnSessions(c *swc.Conversation, ids []string) []int {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []int
	for i, s := range c.Sessions {
		for _, t := range s.Turns {
			if want[t.ID] {
				out = append(out, i)
				break
			}
		}
	}
	return out
}
