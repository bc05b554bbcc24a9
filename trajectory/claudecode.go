package trajectory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Claude Code's session transcripts (~/.claude/projects/PROJECT/ID.jsonl)
// hold a session as lines of events: {"type": "user" | "assistant" |
// "system" | "summary" | "file-history-snapshot" | …, "uuid",
// "parentUuid", "isSidechain", "message": {"role", "content", "id",
// "model"}}. One answer of the model is written as several "assistant"
// lines sharing message.id, a content block each (thinking, text,
// tool_use); parallel tool results as one "user" line each. The
// conversation the model saw is the chain of parentUuid links back from
// the session's last message (an edited or retried prompt leaves a
// branch off it; a compaction starts a chain anew, its summary the first
// user message); subagents' lines (isSidechain) are not part of it. A file
// of a subagent's lines alone (agent-ID.jsonl beside the session, as
// Claude Code writes them) is that subagent's own conversation — its
// task the first user message, its calls and results after — and is read
// as that, from its last line back. The
// bench reads such a file as the Messages body of that chain
// (claudeCodeBody): the transcript holds neither the system prompt nor
// the tool definitions, so the body has neither.

// ccLine is one line of a transcript.
type ccLine struct {
	Type        string  `json:"type"`
	UUID        string  `json:"uuid"`
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	Message     *struct {
		ID      string          `json:"id"`
		Role    string          `json:"role"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// isClaudeCode reports whether data is a Claude Code transcript: JSON
// lines, one of the first 20 of them a user or assistant event with a
// message and a uuid, a summary line (type "summary" with a leafUuid) or
// an event with a uuid and a sessionId.
func isClaudeCode(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for n := 0; n < 20 && sc.Scan(); n++ {
		var l struct {
			ccLine
			LeafUUID  string `json:"leafUuid"`
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			return false
		}
		switch {
		case (l.Type == "user" || l.Type == "assistant") && l.UUID != "" && l.Message != nil,
			l.Type == "summary" && l.LeafUUID != "", // a compacted session's summary line
			l.UUID != "" && l.SessionID != "":
			return true
		}
	}
	return false
}

// claudeCodeBody returns the Messages body of a transcript's conversation
// (see above): the chain back from its last user or assistant message,
// an answer's lines one assistant message, consecutive user lines one
// user message (tool results first), empty text blocks left out. A
// tool_use no result answers before the next assistant message gets a
// "(no output)" result; a tool_result of no tool_use of the message
// before it becomes text.
func claudeCodeBody(data []byte) ([]byte, error) {
	var lines []ccLine
	byID := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	last, lastSide := -1, -1 // the last message outside subagents, and in one
	for n := 1; sc.Scan(); n++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l ccLine
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if l.UUID == "" {
			continue
		}
		byID[l.UUID] = len(lines)
		lines = append(lines, l)
		if (l.Type == "user" || l.Type == "assistant") && l.Message != nil {
			if l.IsSidechain {
				lastSide = len(lines) - 1
			} else {
				last = len(lines) - 1
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	side := false // a subagent's own transcript
	if last < 0 {
		if lastSide < 0 {
			return nil, errNoMessages
		}
		last, side = lastSide, true
	}
	var chain []ccLine
	seen := map[string]bool{}
	for i := last; ; {
		l := lines[i]
		if seen[l.UUID] {
			return nil, fmt.Errorf("parentUuid links loop at %s", l.UUID)
		}
		seen[l.UUID] = true
		if (l.Type == "user" || l.Type == "assistant") && l.Message != nil && l.IsSidechain == side {
			chain = append(chain, l)
		}
		if l.ParentUUID == nil {
			break
		}
		j, ok := byID[*l.ParentUUID]
		if !ok {
			break // the chain starts in another file (a resumed session)
		}
		i = j
	}
	w := &ccWriter{}
	for k := len(chain) - 1; k >= 0; k-- {
		if err := w.add(chain[k]); err != nil {
			return nil, err
		}
	}
	return w.body()
}

// errNoMessages is claudeCodeBody's error for a transcript without a user
// or assistant message (a session of summary lines alone, as Claude Code
// leaves beside compacted ones): parseFile reads it as a body with
// nothing to replay, which the bench skips with a warning.
var errNoMessages = errors.New("no user or assistant message")

// ccWriter builds the Messages list.
type ccWriter struct {
	msgs   []ccMessage
	model  string
	lastID string // message.id of the assistant message being built
}

type ccMessage struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

type ccBlock struct {
	Type      string  `json:"type"`
	ID        string  `json:"id"`
	ToolUseID string  `json:"tool_use_id"`
	Text      *string `json:"text"`
}

func (w *ccWriter) add(l ccLine) error {
	blocks, err := ccBlocks(l.Message.Content)
	if err != nil {
		return fmt.Errorf("message %s: %v", l.UUID, err)
	}
	role := l.Message.Role
	if role == "" {
		role = l.Type
	}
	n := len(w.msgs)
	switch role {
	case "assistant":
		if l.Message.Model != "" && !strings.HasPrefix(l.Message.Model, "<") {
			w.model = l.Message.Model
		}
		if n > 0 && w.msgs[n-1].Role == "assistant" && (l.Message.ID == "" || l.Message.ID == w.lastID) {
			w.msgs[n-1].Content = append(w.msgs[n-1].Content, blocks...)
			return nil
		}
		w.answer()
		if len(w.msgs) == 0 {
			w.msgs = append(w.msgs, ccMessage{Role: "user", Content: []json.RawMessage{textBlock("(start)")}})
		}
		if n := len(w.msgs); w.msgs[n-1].Role == "assistant" { // two answers in a row
			w.msgs = append(w.msgs, ccMessage{Role: "user", Content: []json.RawMessage{textBlock("(continue)")}})
		}
		w.lastID = l.Message.ID
		w.msgs = append(w.msgs, ccMessage{Role: "assistant", Content: blocks})
	case "user":
		if n > 0 && w.msgs[n-1].Role == "user" {
			w.msgs[n-1].Content = append(w.msgs[n-1].Content, blocks...)
			return nil
		}
		w.msgs = append(w.msgs, ccMessage{Role: "user", Content: blocks})
	default:
		return fmt.Errorf("message %s: role %q", l.UUID, role)
	}
	return nil
}

// answer makes the user message after the last assistant message answer
// its tool_use blocks, each once, results first (see claudeCodeBody).
func (w *ccWriter) answer() {
	n := len(w.msgs)
	if n < 1 || w.msgs[n-1].Role != "user" {
		return
	}
	var uses []string
	if n >= 2 && w.msgs[n-2].Role == "assistant" {
		for _, raw := range w.msgs[n-2].Content {
			var b ccBlock
			if json.Unmarshal(raw, &b) == nil && b.Type == "tool_use" {
				uses = append(uses, b.ID)
			}
		}
	}
	open := map[string]bool{}
	for _, id := range uses {
		open[id] = true
	}
	var results, other []json.RawMessage
	for _, raw := range w.msgs[n-1].Content {
		var b ccBlock
		_ = json.Unmarshal(raw, &b)
		switch {
		case b.Type == "tool_result" && open[b.ToolUseID]:
			delete(open, b.ToolUseID)
			results = append(results, raw)
		case b.Type == "tool_result":
			other = append(other, textBlock("(a tool result of no call here)"))
		default:
			other = append(other, raw)
		}
	}
	for _, id := range uses {
		if open[id] {
			r, _ := json.Marshal(map[string]any{"type": "tool_result", "tool_use_id": id, "content": "(no output)"})
			results = append(results, r)
		}
	}
	w.msgs[n-1].Content = append(results, other...)
}

func (w *ccWriter) body() ([]byte, error) {
	// The last message's results are put in order as well, unless it is
	// the answer (an assistant message), which no request holds.
	if n := len(w.msgs); n > 0 && w.msgs[n-1].Role == "user" {
		w.answer()
	}
	for i := range w.msgs {
		if len(w.msgs[i].Content) == 0 {
			w.msgs[i].Content = []json.RawMessage{textBlock("(empty)")}
		}
	}
	model := w.model
	if model == "" {
		model = "claude"
	}
	return json.Marshal(map[string]any{"model": model, "max_tokens": 32000, "messages": w.msgs})
}

// ccBlocks returns a message's content as blocks (a string as one text
// block), empty text blocks left out (a message left with none gets
// "(empty)" in body).
func ccBlocks(raw json.RawMessage) ([]json.RawMessage, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) == "" {
			s = "(empty)"
		}
		return []json.RawMessage{textBlock(s)}, nil
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, fmt.Errorf("content: want a string or a list of blocks")
	}
	out := blocks[:0]
	for _, b := range blocks {
		var h ccBlock
		if json.Unmarshal(b, &h) != nil {
			return nil, fmt.Errorf("content: a block that is not an object")
		}
		if h.Type == "text" && (h.Text == nil || strings.TrimSpace(*h.Text) == "") {
			continue
		}
		out = append(out, b)
	}
	return out, nil
}

func textBlock(s string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
	return b
}
