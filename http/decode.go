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
}

// decodeAppend reads an append body {"messages":[…]}: the messages in any
// chat message schema, parsed by the chat package (one schema per request).
// Unknown top-level fields are rejected; unknown fields inside a message
// are ignored (chat formats carry many). It returns an EINVALID
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
	if len(b.Messages) == 0 {
		return nil, nil
	}
	arr, err := json.Marshal(b.Messages)
	if err != nil {
		return nil, swc.Errorf(swc.EINVALID, "body: %s", jsonErr(err))
	}
	in, err := chat.Parse(arr, chat.Auto)
	if err != nil {
		return nil, err
	}
	out := in.Messages
	var first time.Time
	for i, m := range out {
		where := fmt.Sprintf("messages[%d]", i)
		if i < len(in.Where) {
			where = in.Where[i]
		}
		if len(m.ID) > 200 {
			return nil, swc.Errorf(swc.EINVALID, "%s.id: longer than 200 characters", where)
		}
		if strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0 {
			return nil, swc.Errorf(swc.EINVALID, "%s.content: empty", where)
		}
		if len(m.Content) > s.MaxMessage {
			return nil, swc.Errorf(swc.EINVALID, "%s.content: %d bytes; at most %d per message", where, len(m.Content), s.MaxMessage)
		}
		if m.Time.After(now.Add(FutureSlack)) {
			return nil, swc.Errorf(swc.EINVALID, "%s: timestamp %s is in the future (server time %s)", where,
				m.Time.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
		if !m.Time.IsZero() {
			out[i].Time = m.Time.UTC()
			if first.IsZero() {
				first = out[i].Time
			}
		}
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
