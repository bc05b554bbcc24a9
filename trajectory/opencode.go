package trajectory

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/swcmem/swc/chat"
	_ "modernc.org/sqlite" // opencode's database (pure Go)
)

// opencode (1.x) keeps its sessions in one SQLite database,
// ~/.local/share/opencode/opencode.db (with its -wal file beside it while
// opencode runs): a session row per session (a subagent's has a
// parent_id), a message row per user message and per answer of the model
// ({"role", "error", "summary", "finish", "parentID", …} in "data"), a
// part row per piece of a message ({"type": "text" | "reasoning" | "tool"
// | "step-start" | "step-finish" | "file" | "compaction" | "subtask" | …}).
// An answer runs as steps, each begun by a step-start part: a step is one
// request's reply, its text, reasoning and tool calls, the tool parts
// holding their call and its outcome ({"state": {"status", "input",
// "output", "error"}}). The bench reads each session with an answer as
// the Messages body opencode sends for it (opencodeBody; the database
// holds neither the system prompt nor the tool definitions, so the body
// has neither, as for Claude Code's transcripts), whatever provider the
// session used.

// ocMessage is one message with its parts, in order.
type ocMessage struct {
	ID   string
	Info struct {
		Role     string          `json:"role"`
		ParentID string          `json:"parentID"`
		Summary  bool            `json:"summary"`
		Finish   string          `json:"finish"`
		ModelID  string          `json:"modelID"`
		Error    json.RawMessage `json:"error"`
	}
	Parts []ocPart
}

// ocPart is a part's data, the members the bench reads.
type ocPart struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Ignored   bool   `json:"ignored"`
	Mime      string `json:"mime"`
	Filename  string `json:"filename"`
	URL       string `json:"url"`
	Tool      string `json:"tool"`
	CallID    string `json:"callID"`
	TailStart string `json:"tail_start_id"`
	Metadata  struct {
		Anthropic struct {
			Signature string `json:"signature"`
		} `json:"anthropic"`
	} `json:"metadata"`
	State struct {
		Status   string          `json:"status"`
		Input    json.RawMessage `json:"input"`
		Output   string          `json:"output"`
		Error    string          `json:"error"`
		Metadata struct {
			Interrupted bool    `json:"interrupted"`
			Output      *string `json:"output"`
		} `json:"metadata"`
		Time struct {
			Compacted json.RawMessage `json:"compacted"`
		} `json:"time"`
	} `json:"state"`
}

// isOpencode reports whether the database at path has opencode's
// session, message and part tables.
func isOpencode(db *sql.DB) bool {
	var n int
	err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')`).Scan(&n)
	return err == nil && n == 3
}

// openReadOnly opens the SQLite database at path for reading.
func openReadOnly(path string) (*sql.DB, error) {
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&_pragma=busy_timeout(5000)"}
	return sql.Open("sqlite", u.String())
}

// opencodeSessions returns each session of an opencode database that
// holds an answer, as a trajectory named "opencode-<session id>" with
// its Messages body, in the order the sessions were created.
func opencodeSessions(ctx context.Context, db *sql.DB) ([]Trajectory, error) {
	rows, err := db.QueryContext(ctx, `SELECT id FROM session ORDER BY time_created, id`)
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []Trajectory
	for _, id := range ids {
		msgs, err := opencodeMessages(ctx, db, id)
		if err != nil {
			return nil, fmt.Errorf("session %s: %v", id, err)
		}
		body, ok, err := opencodeBody(msgs)
		if err != nil {
			return nil, fmt.Errorf("session %s: %v", id, err)
		}
		if ok {
			out = append(out, Trajectory{Name: "opencode-" + id, Agent: "opencode", Bodies: []Body{{Format: chat.Anthropic, Data: body}}})
		}
	}
	return out, nil
}

// opencodeMessages reads a session's messages and their parts, each in
// id order (opencode's ids ascend in time).
func opencodeMessages(ctx context.Context, db *sql.DB, session string) ([]ocMessage, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, data FROM message WHERE session_id = ? ORDER BY id`, session)
	if err != nil {
		return nil, err
	}
	var msgs []ocMessage
	at := map[string]int{}
	for rows.Next() {
		var m ocMessage
		var data string
		if err := rows.Scan(&m.ID, &data); err != nil {
			rows.Close()
			return nil, err
		}
		if err := json.Unmarshal([]byte(data), &m.Info); err != nil {
			rows.Close()
			return nil, fmt.Errorf("message %s: %v", m.ID, err)
		}
		at[m.ID] = len(msgs)
		msgs = append(msgs, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = db.QueryContext(ctx, `SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY id`, session)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, msg, data string
		if err := rows.Scan(&id, &msg, &data); err != nil {
			return nil, err
		}
		i, ok := at[msg]
		if !ok {
			continue
		}
		var p ocPart
		if err := json.Unmarshal([]byte(data), &p); err != nil {
			return nil, fmt.Errorf("part %s: %v", id, err)
		}
		msgs[i].Parts = append(msgs[i].Parts, p)
	}
	return msgs, rows.Err()
}

// ocCompacted returns what opencode sends of msgs (oldest first) after a
// compaction: walking back from the newest message, it stops at the user
// message whose compaction an answer summed up (a summary that finished
// without error), or, when that compaction kept a tail of messages
// (tail_start_id), at the tail's first; that user message and its summary
// then come first, the tail after them, then what came after the summary.
func ocCompacted(msgs []ocMessage) []ocMessage {
	var kept []ocMessage
	summed := map[string]bool{}
	tail := ""
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		kept = append(kept, m)
		if tail != "" {
			if m.ID == tail {
				break
			}
			continue
		}
		if m.Info.Role == "user" && summed[m.ID] {
			c := ocCompaction(m)
			if c == nil {
				continue
			}
			if c.TailStart == "" || m.ID == c.TailStart {
				break
			}
			tail = c.TailStart
			continue
		}
		if m.Info.Role == "assistant" && m.Info.Summary && m.Info.Finish != "" && ocNoError(m) {
			summed[m.Info.ParentID] = true
		}
	}
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	w := -1
	for i := len(kept) - 1; i >= 0; i-- {
		if c := ocCompaction(kept[i]); kept[i].Info.Role == "user" && c != nil && c.TailStart != "" {
			w = i
			break
		}
	}
	if w < 0 {
		return kept
	}
	start, sum := -1, -1
	for i := range kept {
		if kept[i].ID == ocCompaction(kept[w]).TailStart {
			start = i
		}
		if sum < 0 && i > w && kept[i].Info.Role == "assistant" && kept[i].Info.Summary && kept[i].Info.ParentID == kept[w].ID {
			sum = i
		}
	}
	if start < 0 || start >= w || sum <= w {
		return kept
	}
	out := append([]ocMessage{}, kept[w:sum+1]...)
	out = append(out, kept[start:w]...)
	return append(out, kept[sum+1:]...)
}

func ocCompaction(m ocMessage) *ocPart {
	for i := range m.Parts {
		if m.Parts[i].Type == "compaction" {
			return &m.Parts[i]
		}
	}
	return nil
}

func ocNoError(m ocMessage) bool {
	e := strings.TrimSpace(string(m.Info.Error))
	return e == "" || e == "null"
}

// opencodeBody returns the Messages body of a session's messages as
// opencode sends them (after ocCompacted), and false when no answer is
// there: a user message's text parts (not ignored), files ("[Attached
// MIME: NAME]"; an image of a data URL as an image block), a compaction
// as "What did we do so far?"; an answer, but one that failed with
// nothing to show, as one assistant message per step — its text, its
// reasoning as a thinking block when it carries the provider's signature,
// its tool calls — each followed by a user message of the calls'
// results: the output (a compacted one as "[Old tool result content
// cleared]"), an error as an error result, a call left running as
// "[Tool execution was interrupted]".
func opencodeBody(msgs []ocMessage) ([]byte, bool, error) {
	w := &ccWriter{}
	answered := false
	add := func(id, role string, blocks []json.RawMessage) error {
		if len(blocks) == 0 {
			return nil
		}
		content, err := json.Marshal(blocks)
		if err != nil {
			return err
		}
		l := ccLine{Type: role, UUID: id}
		l.Message = &struct {
			ID      string          `json:"id"`
			Role    string          `json:"role"`
			Model   string          `json:"model"`
			Content json.RawMessage `json:"content"`
		}{ID: id, Role: role, Content: content}
		return w.add(l)
	}
	for _, m := range ocCompacted(msgs) {
		switch m.Info.Role {
		case "user":
			if err := add(m.ID, "user", ocUserBlocks(m)); err != nil {
				return nil, false, err
			}
		case "assistant":
			if !ocNoError(m) && !ocAbortedWithWork(m) {
				continue
			}
			step := 0
			var calls, results []json.RawMessage
			flush := func() error {
				if len(calls) > 0 {
					answered = true
					if err := add(fmt.Sprintf("%s#%d", m.ID, step), "assistant", calls); err != nil {
						return err
					}
				}
				err := add(fmt.Sprintf("%s#%d/results", m.ID, step), "user", results)
				calls, results = nil, nil
				step++
				return err
			}
			for _, p := range m.Parts {
				switch p.Type {
				case "step-start":
					if len(calls) > 0 {
						if err := flush(); err != nil {
							return nil, false, err
						}
					}
				case "text":
					if strings.TrimSpace(p.Text) != "" {
						calls = append(calls, textBlock(p.Text))
					}
				case "reasoning":
					if p.Metadata.Anthropic.Signature != "" {
						b, _ := json.Marshal(map[string]string{"type": "thinking", "thinking": p.Text, "signature": p.Metadata.Anthropic.Signature})
						calls = append(calls, b)
					}
				case "tool":
					use, result, err := ocTool(p)
					if err != nil {
						return nil, false, err
					}
					calls, results = append(calls, use), append(results, result)
				}
			}
			if err := flush(); err != nil {
				return nil, false, err
			}
		}
	}
	if !answered {
		return nil, false, nil
	}
	body, err := w.body()
	return body, true, err
}

// ocAbortedWithWork reports whether an answer that failed was aborted
// (MessageAbortedError) with something to show beside its reasoning, which
// opencode still sends.
func ocAbortedWithWork(m ocMessage) bool {
	var e struct{ Name string }
	if json.Unmarshal(m.Info.Error, &e) != nil || e.Name != "MessageAbortedError" {
		return false
	}
	for _, p := range m.Parts {
		if p.Type != "step-start" && p.Type != "reasoning" {
			return true
		}
	}
	return false
}

// ocUserBlocks returns a user message's content blocks.
func ocUserBlocks(m ocMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, p := range m.Parts {
		switch p.Type {
		case "text":
			if !p.Ignored && p.Text != "" {
				out = append(out, textBlock(p.Text))
			}
		case "file":
			if p.Mime == "text/plain" || p.Mime == "application/x-directory" {
				continue
			}
			if b, ok := ocImage(p); ok {
				out = append(out, b)
				continue
			}
			name := p.Filename
			if name == "" {
				name = "file"
			}
			out = append(out, textBlock(fmt.Sprintf("[Attached %s: %s]", p.Mime, name)))
		case "compaction":
			out = append(out, textBlock("What did we do so far?"))
		case "subtask":
			out = append(out, textBlock("The following tool was executed by the user"))
		}
	}
	return out
}

// ocImage returns an image file part of a base64 data URL as an image
// block.
func ocImage(p ocPart) (json.RawMessage, bool) {
	head, data, ok := strings.Cut(p.URL, ",")
	if !ok || !strings.HasPrefix(p.Mime, "image/") || !strings.HasPrefix(head, "data:") || !strings.HasSuffix(head, ";base64") {
		return nil, false
	}
	b, err := json.Marshal(map[string]any{"type": "image", "source": map[string]string{"type": "base64", "media_type": p.Mime, "data": data}})
	return b, err == nil
}

// ocTool returns a tool part's tool_use block and its tool_result.
func ocTool(p ocPart) (use, result json.RawMessage, err error) {
	input := p.State.Input
	if len(strings.TrimSpace(string(input))) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	if use, err = json.Marshal(map[string]any{"type": "tool_use", "id": p.CallID, "name": p.Tool, "input": input}); err != nil {
		return nil, nil, fmt.Errorf("tool %s: %v", p.CallID, err)
	}
	r := map[string]any{"type": "tool_result", "tool_use_id": p.CallID}
	switch p.State.Status {
	case "completed":
		r["content"] = p.State.Output
		if c := strings.TrimSpace(string(p.State.Time.Compacted)); c != "" && c != "null" && c != "false" {
			r["content"] = "[Old tool result content cleared]"
		}
	case "error":
		if p.State.Metadata.Interrupted && p.State.Metadata.Output != nil {
			r["content"] = *p.State.Metadata.Output
		} else {
			r["content"], r["is_error"] = p.State.Error, true
		}
	default: // pending, running
		r["content"], r["is_error"] = "[Tool execution was interrupted]", true
	}
	if s, _ := r["content"].(string); strings.TrimSpace(s) == "" {
		r["content"] = "(no output)"
	}
	result, err = json.Marshal(r)
	return use, result, err
}
