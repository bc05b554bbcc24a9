package http

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRecallRead bounds an upstream answer read whole to see whether it
// calls swc_recall: a longer one is relayed as it comes.
const maxRecallRead = 32 << 20

// recallTurn is what one upstream answer holds for recall.
type recallTurn struct {
	calls     []recallCall   // swc_recall's calls, in order
	swcIdx    map[int]bool   // their indexes (stream blocks or tool_calls entries)
	others    int            // the client's tool calls
	assistant []byte         // the assistant message that answer is, to send back
	usage     map[string]any // its usage
	items     []any          // Responses: the output items
	// Gemini, while a client's answer is rewritten: the thought signature
	// of a removed swc_recall call not yet given to a client's call, and
	// whether a client's call went out.
	geminiSig    string
	geminiCalled bool
}

type recallCall struct{ id, args string }

// forwardRecall sends body upstream with swc_recall among its tools and
// answers swc's calls itself: the assistant's turn and swc's tool results
// are appended to the request, which goes upstream again, up to
// recallRounds rounds. The client gets the last answer, usage summed over
// the rounds, with swc's calls removed; an answer that calls a client
// tool too, or comes past the last round, goes to the client without
// swc's calls (streamed: their events dropped, indexes renumbered). The
// upstream's answers are read whole while they may call swc_recall alone
// (streams: streamRound); an error status is relayed as it came.
func (s *Server) forwardRecall(w http.ResponseWriter, r *http.Request, p protocol, up Upstream, body []byte, out *proxyOut, rc *recaller) {
	send, err := withRecallTool(p, body)
	if err != nil {
		s.forward(w, r, p, up, body, out)
		return
	}
	prior := map[string]any{}
	answered := 0
	for round := 0; ; round++ {
		resp := s.sendUpstream(w, r, p, up, send)
		if resp == nil {
			return
		}
		stream := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
		var data []byte
		if stream && resp.StatusCode == http.StatusOK {
			var streamed bool
			data, streamed, err = s.streamRound(w, resp, p, out, prior, answered, round >= s.recallRounds())
			if streamed {
				resp.Body.Close()
				return
			}
		} else {
			data, err = io.ReadAll(io.LimitReader(resp.Body, maxRecallRead+1))
		}
		if err != nil {
			resp.Body.Close()
			s.upstreamFailed(w, r, p, err)
			return
		}
		var t recallTurn
		ok := resp.StatusCode == http.StatusOK && len(data) <= maxRecallRead
		if ok {
			t, ok = parseTurn(p, stream, data)
		}
		if !ok || (len(t.calls) == 0 && answered == 0) {
			s.relayRead(w, resp, out, data, answered)
			resp.Body.Close()
			return
		}
		if len(t.calls) > 0 && t.others == 0 && round < s.recallRounds() {
			resp.Body.Close()
			next, err := appendRecallTurn(r.Context(), p, send, t, rc)
			if err != nil {
				s.logger().Error("proxy: recall turn", "err", err)
				proxyError(w, p, http.StatusInternalServerError, "api_error", "internal error while answering swc_recall")
				return
			}
			send = next
			addUsage(prior, t.usage)
			answered += len(t.calls)
			continue
		}
		if stream {
			data = rewriteStream(p, data, &t, prior)
		} else if d, err := rewriteJSON(p, data, &t, prior); err == nil {
			data = d
		}
		resp.Body.Close()
		h := w.Header()
		s.responseHeaders(h, resp, out)
		h.Del("Content-Length")
		if !stream {
			h.Set("Content-Length", strconv.Itoa(len(data)))
		}
		h.Set(HeaderRecall, strconv.Itoa(answered))
		w.WriteHeader(resp.StatusCode)
		w.Write(data)
		return
	}
}

// streamRound reads an upstream stream event by event. While the answer
// may still be a call of swc_recall alone, its events are kept; once a
// client's tool call begins, the answer grows past maxRecallRead, or from
// the start when now (the last round), the events kept and the rest go
// to the client as they come, rewritten as rewriteStream does. It returns
// the stream's bytes when it kept them all, and whether it streamed to
// the client instead (the request is then answered).
func (s *Server) streamRound(w http.ResponseWriter, resp *http.Response, p protocol, out *proxyOut, prior map[string]any, answered int, now bool) ([]byte, bool, error) {
	br := bufio.NewReaderSize(resp.Body, 32<<10)
	live := recallTurn{swcIdx: map[int]bool{}}
	var kept []sseEvent
	var data, ev bytes.Buffer
	var rc *http.ResponseController
	seq := 0
	start := func() {
		h := w.Header()
		s.responseHeaders(h, resp, out)
		h.Del("Content-Length")
		h.Set(HeaderRecall, strconv.Itoa(answered))
		rc = http.NewResponseController(w)
		rc.SetWriteDeadline(time.Time{})
		w.WriteHeader(resp.StatusCode)
		for _, e := range kept {
			w.Write(rewriteEvent(p, e, &live, prior, &seq))
		}
		kept = nil
		rc.Flush()
	}
	if now {
		start()
	}
	for {
		line, err := br.ReadBytes('\n')
		ev.Write(line)
		if end := err != nil || len(bytes.TrimRight(line, "\r\n")) == 0; end {
			raw := append([]byte(nil), ev.Bytes()...)
			ev.Reset()
			for _, e := range splitEvents(raw) {
				v, _ := decodeJSON([]byte(e.data))
				client := false
				if m := obj(v); m != nil {
					client = noteCalls(p, m, &live)
				}
				if rc != nil {
					if _, werr := w.Write(rewriteEvent(p, e, &live, prior, &seq)); werr != nil {
						return nil, true, nil
					}
					rc.Flush()
					continue
				}
				kept = append(kept, e)
				data.Write(raw)
				if client || data.Len() > maxRecallRead {
					start()
				}
			}
		}
		if err != nil {
			if rc != nil {
				return nil, true, nil
			}
			if err == io.EOF {
				return data.Bytes(), false, nil
			}
			return nil, false, err
		}
	}
}

// relayRead writes an upstream answer of which data was read to the
// client as it came, then the rest of it.
func (s *Server) relayRead(w http.ResponseWriter, resp *http.Response, out *proxyOut, data []byte, answered int) {
	h := w.Header()
	s.responseHeaders(h, resp, out)
	if answered > 0 {
		h.Set(HeaderRecall, strconv.Itoa(answered))
	}
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{})
	w.WriteHeader(resp.StatusCode)
	if _, err := w.Write(data); err != nil {
		return
	}
	rc.Flush()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		streamEvents(w, rc, resp.Body)
		return
	}
	io.Copy(w, resp.Body)
}

// appendRecallTurn returns send with the assistant's turn t and swc's
// answers to its calls appended to the messages.
func appendRecallTurn(ctx context.Context, p protocol, send []byte, t recallTurn, rc *recaller) ([]byte, error) {
	if p == protoGemini {
		answers := make([]string, len(t.calls))
		for i, c := range t.calls {
			answers[i] = rc.answer(ctx, c.args)
		}
		vals, err := geminiRound(t, answers)
		if err != nil {
			return nil, err
		}
		return appendToArray(send, "contents", vals...)
	}
	if p == protoResponses {
		answers := make([]string, len(t.calls))
		for i, c := range t.calls {
			answers[i] = rc.answer(ctx, c.args)
		}
		vals, err := responsesRound(t, answers)
		if err != nil {
			return nil, err
		}
		if send, err = responsesInput(send); err != nil {
			return nil, err
		}
		return appendToArray(send, "input", vals...)
	}
	vals := []string{string(t.assistant)}
	if p == protoAnthropic {
		blocks := make([]map[string]any, len(t.calls))
		for i, c := range t.calls {
			blocks[i] = map[string]any{"type": "tool_result", "tool_use_id": c.id, "content": rc.answer(ctx, c.args)}
		}
		b, err := marshalNoEscape(map[string]any{"role": "user", "content": blocks})
		if err != nil {
			return nil, err
		}
		vals = append(vals, string(b))
	} else {
		for _, c := range t.calls {
			b, err := marshalNoEscape(map[string]any{"role": "tool", "tool_call_id": c.id, "content": rc.answer(ctx, c.args)})
			if err != nil {
				return nil, err
			}
			vals = append(vals, string(b))
		}
	}
	return appendToArray(send, "messages", vals...)
}

// parseTurn reads an upstream answer (a JSON object, or an event stream
// when stream): ok=false when it is not one swc can read.
func parseTurn(p protocol, stream bool, data []byte) (recallTurn, bool) {
	switch {
	case p == protoGemini:
		return parseGemini(stream, data)
	case stream && p == protoAnthropic:
		return parseAnthropicStream(data)
	case stream && p == protoResponses:
		return parseResponsesStream(data)
	case stream:
		return parseOpenAIStream(data)
	}
	v, err := decodeJSON(data)
	if err != nil {
		return recallTurn{}, false
	}
	m := obj(v)
	if p == protoAnthropic {
		return anthropicTurn(arr(m["content"]), obj(m["usage"]))
	}
	if p == protoResponses {
		return responsesTurn(arr(m["output"]), obj(m["usage"]))
	}
	choices := arr(m["choices"])
	if len(choices) != 1 {
		return recallTurn{}, false
	}
	msg := obj(obj(choices[0])["message"])
	return openAITurn(msg["content"], arr(msg["tool_calls"]), obj(m["usage"]))
}

// anthropicTurn is the turn of an Anthropic message's content blocks.
func anthropicTurn(content []any, usage map[string]any) (recallTurn, bool) {
	t := recallTurn{swcIdx: map[int]bool{}, usage: usage}
	for i, b := range content {
		blk := obj(b)
		if str(blk["type"]) != "tool_use" {
			continue
		}
		if str(blk["name"]) != recallTool {
			t.others++
			continue
		}
		args, _ := marshalNoEscape(blk["input"])
		t.calls = append(t.calls, recallCall{str(blk["id"]), string(args)})
		t.swcIdx[i] = true
	}
	var err error
	t.assistant, err = marshalNoEscape(map[string]any{"role": "assistant", "content": content})
	return t, err == nil
}

// openAITurn is the turn of a Chat Completions message.
func openAITurn(content any, calls []any, usage map[string]any) (recallTurn, bool) {
	t := recallTurn{swcIdx: map[int]bool{}, usage: usage}
	var mine []any
	for i, c := range calls {
		fn := obj(obj(c)["function"])
		if str(fn["name"]) != recallTool {
			t.others++
			continue
		}
		t.calls = append(t.calls, recallCall{str(obj(c)["id"]), str(fn["arguments"])})
		t.swcIdx[i] = true
		mine = append(mine, c)
	}
	var err error
	t.assistant, err = marshalNoEscape(map[string]any{"role": "assistant", "content": content, "tool_calls": mine})
	return t, err == nil
}

// rewriteJSON returns an answer without swc's calls (a stop reason of
// tool use becomes the end of the turn when no call is left) and with
// prior's usage added to its own.
func rewriteJSON(p protocol, data []byte, t *recallTurn, prior map[string]any) ([]byte, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	if p == protoGemini {
		return marshalNoEscape(rewriteGeminiJSON(v, t, prior))
	}
	m := obj(v)
	if p == protoResponses {
		rewriteResponse(m, t, prior, true)
		return marshalNoEscape(m)
	}
	if p == protoAnthropic {
		m["content"] = dropIndexes(arr(m["content"]), t.swcIdx)
		if t.others == 0 && str(m["stop_reason"]) == "tool_use" {
			m["stop_reason"] = "end_turn"
		}
	} else if choices := arr(m["choices"]); len(choices) == 1 {
		ch := obj(choices[0])
		msg := obj(ch["message"])
		if calls := dropIndexes(arr(msg["tool_calls"]), t.swcIdx); len(calls) > 0 {
			msg["tool_calls"] = calls
		} else if msg != nil {
			delete(msg, "tool_calls")
		}
		if t.others == 0 && str(ch["finish_reason"]) == "tool_calls" {
			ch["finish_reason"] = "stop"
		}
	}
	if u := obj(m["usage"]); u != nil {
		addUsage(u, prior)
	}
	return marshalNoEscape(m)
}

func dropIndexes(xs []any, drop map[int]bool) []any {
	out := make([]any, 0, len(xs))
	for i, x := range xs {
		if !drop[i] {
			out = append(out, x)
		}
	}
	return out
}

// addUsage adds src's counts to dst's (nested objects too).
func addUsage(dst, src map[string]any) {
	for k, v := range src {
		switch v := v.(type) {
		case json.Number:
			a, _ := dst[k].(json.Number)
			x, _ := a.Int64()
			y, _ := v.Int64()
			dst[k] = json.Number(strconv.FormatInt(x+y, 10))
		case map[string]any:
			d, ok := dst[k].(map[string]any)
			if !ok {
				d = map[string]any{}
				dst[k] = d
			}
			addUsage(d, v)
		case []any:
			if d, ok := addModalities(arr(dst[k]), v); ok {
				dst[k] = d
			}
		}
	}
}

// addModalities adds src's token counts by modality to dst's (Gemini's
// promptTokensDetails: [{"modality":"TEXT","tokenCount":N}, …]); ok=false
// when either is not such a list.
func addModalities(dst, src []any) ([]any, bool) {
	at := map[string]map[string]any{}
	for _, d := range dst {
		m := obj(d)
		if m == nil || str(m["modality"]) == "" {
			return nil, false
		}
		at[str(m["modality"])] = m
	}
	for _, s := range src {
		m := obj(s)
		if m == nil || str(m["modality"]) == "" {
			return nil, false
		}
	}
	for _, s := range src {
		m := obj(s)
		d := at[str(m["modality"])]
		if d == nil {
			d = map[string]any{"modality": m["modality"]}
			at[str(m["modality"])] = d
			dst = append(dst, d)
		}
		addUsage(d, m)
	}
	return dst, true
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }
func str(v any) string         { s, _ := v.(string); return s }
