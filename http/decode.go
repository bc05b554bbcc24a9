package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

type appendBody struct {
	Messages []json.RawMessage `json:"messages"`
	Stamp    string            `json:"stamp"`
}

// appendBatch is a decoded append: the messages, where each came from in
// the body (for errors), and which untimed ones take the server's clock.
type appendBatch struct {
	msgs  []swc.Message
	where []string
	stamp swc.Stamp
}

// decodeAppend reads an append body {"messages":[…],"stamp":…}: the
// messages in any chat message schema, parsed by the chat package (one
// schema per request), and "stamp" (auto, none or server; swc.Stamp).
// Unknown top-level fields are rejected; unknown fields inside a message
// are ignored (chat formats carry many). Untimed messages stay untimed:
// the store stamps them, or not, with the conversation locked. It returns
// an EINVALID error naming the message and field.
func (s *Server) decodeAppend(body []byte, now time.Time) (appendBatch, error) {
	var out appendBatch
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var b appendBody
	if err := dec.Decode(&b); err != nil {
		return out, swc.Errorf(swc.EINVALID, "body: %s", jsonErr(err))
	}
	if dec.More() {
		return out, swc.Errorf(swc.EINVALID, "body: more than one JSON value")
	}
	if b.Messages == nil {
		return out, swc.Errorf(swc.EINVALID, `body: want {"messages":[…]}`)
	}
	switch b.Stamp {
	case "", "auto":
		out.stamp = swc.StampLive
	case "none":
		out.stamp = swc.StampNone
	case "server":
		out.stamp = swc.StampAll
	default:
		return out, swc.Errorf(swc.EINVALID, "body.stamp: %q (want auto, none or server)", b.Stamp)
	}
	if n := min(s.MaxBatch, s.maxMessages()); len(b.Messages) > n {
		return out, swc.Errorf(swc.EINVALID, "body: %d messages; at most %d per request", len(b.Messages), n)
	}
	if len(b.Messages) == 0 {
		return out, nil
	}
	arr, err := json.Marshal(b.Messages)
	if err != nil {
		return out, swc.Errorf(swc.EINVALID, "body: %s", jsonErr(err))
	}
	in, err := chat.ParseBatch(arr, chat.Auto)
	if err != nil {
		return out, err
	}
	if err := s.checkMessages(in, now); err != nil {
		return out, err
	}
	out.msgs, out.where = in.Messages, in.Where
	return out, nil
}

// checkMessages applies the service's limits to parsed messages: ids of
// at most 200 characters, content present and within MaxMessage, no time
// in the future (past FutureSlack). It returns an EINVALID error naming
// the message.
func (s *Server) checkMessages(in *chat.Input, now time.Time) error {
	for i, m := range in.Messages {
		where := fmt.Sprintf("messages[%d]", i)
		if i < len(in.Where) {
			where = in.Where[i]
		}
		if len(m.ID) > 200 {
			return swc.Errorf(swc.EINVALID, "%s.id: longer than 200 characters", where)
		}
		if strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0 {
			return swc.Errorf(swc.EINVALID, "%s.content: empty", where)
		}
		if len(m.Content) > s.MaxMessage {
			return swc.Errorf(swc.EINVALID, "%s.content: %d bytes; at most %d per message", where, len(m.Content), s.MaxMessage)
		}
		if m.Time.After(now.Add(FutureSlack)) {
			return swc.Errorf(swc.EINVALID, "%s: timestamp %s is in the future (server time %s)", where,
				m.Time.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// maxMessages is MaxMessages, or DefaultMaxMessages when it is not set.
func (s *Server) maxMessages() int {
	if s.MaxMessages > 0 {
		return s.MaxMessages
	}
	return DefaultMaxMessages
}

// checkStored applies the append limits to the messages the proxy stores
// (all but the instructions, which are the client's and not stored, and
// the mid-conversation system messages the store keeps as such): ids
// of at most 200 characters, content within MaxMessage. It returns an
// EINVALID error naming the message and the flag.
func (s *Server) checkStored(in *chat.Input) error {
	for i, m := range in.Messages {
		if chat.IsInstruction(m) || m.InPlace {
			continue
		}
		where := fmt.Sprintf("messages[%d]", i)
		if i < len(in.Where) {
			where = in.Where[i]
		}
		if len(m.ID) > 200 {
			return swc.Errorf(swc.EINVALID, "%s.id: longer than 200 characters", where)
		}
		if len(m.Content) > s.MaxMessage {
			return swc.Errorf(swc.EINVALID, "%s.content: %d bytes; a stored conversation (%s) takes at most %d per message (swc serve --max-message)", where, len(m.Content), HeaderConversation, s.MaxMessage)
		}
	}
	return nil
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
