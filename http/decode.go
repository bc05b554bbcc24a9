package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/swcmem/swc"
)

// wireMessage is one message of an append body in any SPEC §8 schema:
// OpenAI (role, content string or parts, name, tool_calls, tool_call_id),
// Anthropic (role, content blocks), or jsonl (speaker, text, time,
// session). Fields not listed here are ignored.
type wireMessage struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCalls  []wireToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Speaker    string          `json:"speaker"`
	Text       *string         `json:"text"`
	Timestamp  json.RawMessage `json:"timestamp"`
	CreatedAt  json.RawMessage `json:"created_at"`
	Time       json.RawMessage `json:"time"`
	Session    string          `json:"session"`
}

type wireToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Function  *struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type appendBody struct {
	Messages []json.RawMessage `json:"messages"`
}

var roles = map[string]swc.Role{
	"system": swc.RoleSystem, "developer": swc.RoleDeveloper, "user": swc.RoleUser,
	"assistant": swc.RoleAssistant, "tool": swc.RoleTool,
}

// decodeAppend reads an append body. Unknown top-level fields are
// rejected; unknown fields inside a message are ignored (chat formats carry
// many). It returns an EINVALID
// error naming the message index and field.
func (s *Server) decodeAppend(body []byte, now time.Time) ([]swc.Message, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var b appendBody
	if err := dec.Decode(&b); err != nil {
		return nil, swc.Errorf(swc.EINVALID, "body: %s", jsonErr(err))
	}
	if dec.More() {
		return nil, swc.Errorf(swc.EINVALID, "body: more than one JSON value")
	}
	if b.Messages == nil {
		return nil, swc.Errorf(swc.EINVALID, `body: want {"messages":[…]}`)
	}
	if len(b.Messages) > s.MaxBatch {
		return nil, swc.Errorf(swc.EINVALID, "body: %d messages; at most %d per request", len(b.Messages), s.MaxBatch)
	}
	out := make([]swc.Message, 0, len(b.Messages))
	var first time.Time
	for i, raw := range b.Messages {
		m, err := s.decodeMessage(raw, now)
		if err != nil {
			return nil, swc.Errorf(swc.EINVALID, "messages[%d]: %s", i, err)
		}
		if first.IsZero() {
			first = m.Time
		}
		out = append(out, m)
	}
	// A message without a time takes the previous message's (the first
	// timed one's when it leads the batch); a batch with none takes now.
	if first.IsZero() {
		first = now
	}
	prev := first
	for i := range out {
		if out[i].Time.IsZero() {
			out[i].Time = prev
		}
		prev = out[i].Time
	}
	return out, nil
}

func (s *Server) decodeMessage(raw json.RawMessage, now time.Time) (swc.Message, error) {
	var w wireMessage
	if err := json.Unmarshal(raw, &w); err != nil {
		return swc.Message{}, errors.New(jsonErr(err))
	}
	var m swc.Message
	m.ID, m.Session, m.Name, m.ToolCallID = w.ID, w.Session, w.Name, w.ToolCallID
	if len(m.ID) > 200 {
		return m, errors.New("id: longer than 200 characters")
	}
	switch {
	case w.Role != "":
		r, ok := roles[w.Role]
		if !ok {
			return m, fmt.Errorf("role: unknown role %q (want system, developer, user, assistant or tool)", w.Role)
		}
		m.Role = r
		text, err := contentText(w.Content)
		if err != nil {
			return m, err
		}
		m.Content = text
		if w.Text != nil && m.Content == "" {
			m.Content = *w.Text
		}
	case w.Speaker != "" || w.Text != nil:
		if w.Speaker == "" {
			return m, errors.New("speaker: missing")
		}
		m.Role, m.Name = swc.RoleUser, w.Speaker
		if w.Text != nil {
			m.Content = *w.Text
		}
	default:
		return m, errors.New("want role and content, or speaker and text")
	}
	for j, tc := range w.ToolCalls {
		c := swc.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
		if tc.Function != nil {
			c.Name, c.Arguments = tc.Function.Name, tc.Function.Arguments
		}
		if c.Name == "" {
			return m, fmt.Errorf("tool_calls[%d]: no function name", j)
		}
		m.ToolCalls = append(m.ToolCalls, c)
	}
	if strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0 {
		return m, errors.New("content: empty")
	}
	if len(m.Content) > s.MaxMessage {
		return m, fmt.Errorf("content: %d bytes; at most %d per message", len(m.Content), s.MaxMessage)
	}
	t, err := messageTime(w)
	if err != nil {
		return m, err
	}
	if !t.IsZero() && t.After(now.Add(FutureSlack)) {
		return m, fmt.Errorf("timestamp %s is in the future (server time %s)", t.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if !t.IsZero() {
		m.Time = t.UTC()
	}
	return m, nil
}

// contentText reads a content string, or a list of parts/blocks: text
// parts are joined; tool_result blocks contribute their text; other types
// become a placeholder naming the type.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
		Name    string          `json:"name"`
		Input   json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("content: want a string or a list of parts")
	}
	var out []string
	for i, p := range parts {
		switch p.Type {
		case "text", "input_text", "output_text":
			out = append(out, p.Text)
		case "tool_result":
			t, err := contentText(p.Content)
			if err != nil {
				return "", fmt.Errorf("content[%d]: %w", i, err)
			}
			out = append(out, t)
		case "tool_use":
			out = append(out, fmt.Sprintf("[calls %s(%s)]", p.Name, string(p.Input)))
		case "":
			return "", fmt.Errorf("content[%d]: part without a type", i)
		default:
			out = append(out, "["+p.Type+"]")
		}
	}
	return strings.Join(out, "\n"), nil
}

// messageTime reads timestamp (RFC 3339), time (RFC 3339) or created_at
// (RFC 3339 or Unix seconds); zero when none is given.
func messageTime(w wireMessage) (time.Time, error) {
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		unix bool
	}{{"timestamp", w.Timestamp, false}, {"time", w.Time, false}, {"created_at", w.CreatedAt, true}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(f.raw, &s); err == nil {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return time.Time{}, fmt.Errorf("%s: %q is not an RFC 3339 time", f.name, s)
			}
			return t, nil
		}
		if f.unix {
			if n, err := strconv.ParseFloat(string(f.raw), 64); err == nil && n > 0 && n < 1e11 {
				sec := int64(n)
				return time.Unix(sec, int64((n-float64(sec))*1e9)), nil
			}
			return time.Time{}, fmt.Errorf("%s: want an RFC 3339 string or Unix seconds", f.name)
		}
		return time.Time{}, fmt.Errorf("%s: want an RFC 3339 string", f.name)
	}
	return time.Time{}, nil
}

// jsonErr turns a decoding error into one short line.
func jsonErr(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "value"
		}
		return fmt.Sprintf("%s: want %s, got JSON %s", field, te.Type, te.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "empty or truncated JSON"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// readBody reads at most MaxBody bytes; over that it writes 413 and
// returns ok=false.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.MaxBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("request body over %d bytes", s.MaxBody))
		return nil, false
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, swc.EINVALID, "reading body: "+err.Error())
		return nil, false
	}
	return body, true
}
