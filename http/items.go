package http

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Stored items of the Responses API. With "store" (the API's default) an
// agent may send back the items of earlier answers as references,
// {"type":"item_reference","id":"msg_…"}, rather than as the items: the
// Vercel AI SDK does so for an assistant's message of a model without
// reasoning, a hosted tool's call (web search, tool search) and the like.
// swc cannot read what a reference names, so such a request would go out
// as it came, uncompressed, however long the loop. The proxy keeps the
// output items of the Responses answers it relays (the "output" of a
// JSON answer, each "response.output_item.done" of a stream), by tenant
// and id, byte-bounded (ProxyConfig.ItemBytes); a request whose
// references all name items it holds is read and compressed with the
// items in their place (resolveItems). One it cannot resolve whole (the
// item came through another replica, before a restart, or was evicted)
// goes out as it came, saying how many references swc did not know.
// Each item is kept with the id of the response it came in: once the
// client deletes that response (DELETE /v1/responses/{id}, answered 2xx
// or 404 upstream) its items are forgotten, so a later reference to one
// goes to the provider as it came and gets the provider's answer, as
// without swc (forgetResponse).

// DefaultItemBytes is the default of ProxyConfig.ItemBytes.
const DefaultItemBytes = 16 << 20

// itemKey names a stored output item: its tenant's and its id.
type itemKey struct{ tenant, id string }

// storedItem is an output item as the answer held it, and the id of the
// response it came in ("" when the answer did not say).
type storedItem struct {
	resp string
	raw  []byte
}

// itemLineMax bounds one line of an answer's event stream that the tap
// reads (an item's event): a longer one is relayed but not kept.
const itemLineMax = 8 << 20

// unstoredKey marks the context of a Responses request with "store":
// false: the provider keeps nothing of its answer, so no later request can
// name its items, and swc keeps none of them either (they would push out
// the items of clients that do).
type unstoredKey struct{}

// tapItems wraps the body of resp, the upstream's answer to r, a
// Responses request of tenant, so that the output items it holds are kept
// as the body is read (by whoever relays it); not for a request with
// "store": false (unstoredKey).
func (s *Server) tapItems(r *http.Request, tenant string, resp *http.Response) {
	if s.proxy.items == nil || resp.StatusCode != http.StatusOK || r.Context().Value(unstoredKey{}) != nil {
		return
	}
	resp.Body = &itemTap{rc: resp.Body, stream: strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"),
		keep: func(resp, id string, item []byte) {
			s.proxy.items.Put(tenant, itemKey{tenant, id}, storedItem{resp, item}, int64(len(item)+len(id)+len(resp)+len(tenant)+64))
		}}
}

// forgetResponse forgets the items tenant's response id held, once the
// client deleted it (sendUpstream).
func (s *Server) forgetResponse(tenant, id string) {
	if s.proxy.items == nil || id == "" {
		return
	}
	s.proxy.items.DeleteFunc(func(k itemKey, it storedItem) bool { return k.tenant == tenant && it.resp == id })
}

// itemTap is a response body that passes its bytes on and keeps the
// output items they carry: for an event stream, each line as it ends; for
// a JSON answer, the whole body at its end (up to itemLineMax).
type itemTap struct {
	rc     io.ReadCloser
	stream bool
	line   []byte
	over   bool // the line or body is past itemLineMax: not read
	done   bool
	resp   string // the response's id, from a stream's response.created
	keep   func(resp, id string, item []byte)
}

func (t *itemTap) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.feed(p[:n])
	if err == io.EOF && !t.stream {
		t.finish()
	}
	return n, err
}

func (t *itemTap) Close() error { return t.rc.Close() }

func (t *itemTap) feed(b []byte) {
	for len(b) > 0 {
		if !t.stream {
			t.add(b)
			return
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			t.add(b)
			return
		}
		if len(t.line) == 0 && !t.over { // the whole line in this read: read in place
			t.event(b[:i])
		} else {
			t.add(b[:i])
			t.event(t.line)
		}
		t.line, t.over = t.line[:0], false
		b = b[i+1:]
	}
}

func (t *itemTap) add(b []byte) {
	if t.over || len(t.line)+len(b) > itemLineMax {
		t.over, t.line = true, t.line[:0]
		return
	}
	t.line = append(t.line, b...)
}

// event keeps the item of a stream's data line of type
// response.output_item.done, and the response's id from one of type
// response.created.
func (t *itemTap) event(line []byte) {
	data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:"))
	if !ok {
		return
	}
	if t.resp == "" && bytes.Contains(data, []byte(`"response.created"`)) {
		var ev struct {
			Type     string `json:"type"`
			Response struct {
				ID string `json:"id"`
			} `json:"response"`
		}
		if json.Unmarshal(data, &ev) == nil && ev.Type == "response.created" {
			t.resp = ev.Response.ID
			return
		}
	}
	if !bytes.Contains(data, []byte(`"response.output_item.done"`)) {
		return
	}
	var ev struct {
		Type string          `json:"type"`
		Item json.RawMessage `json:"item"`
	}
	if json.Unmarshal(data, &ev) == nil && ev.Type == "response.output_item.done" {
		t.keepItem(ev.Item)
	}
}

// finish keeps the items of a JSON answer's output.
func (t *itemTap) finish() {
	if t.done || t.over {
		return
	}
	t.done = true
	var resp struct {
		ID     string            `json:"id"`
		Output []json.RawMessage `json:"output"`
	}
	if json.Unmarshal(t.line, &resp) == nil {
		t.resp = resp.ID
		for _, it := range resp.Output {
			t.keepItem(it)
		}
	}
	t.line = nil
}

func (t *itemTap) keepItem(raw json.RawMessage) {
	var head struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(raw, &head) == nil && head.ID != "" {
		t.keep(t.resp, head.ID, bytes.Clone(bytes.TrimSpace(raw)))
	}
}

// resolveItems returns body, a Responses request of tenant whose input
// holds item references, with each replaced by the item it names, and
// why "" — or body as it came and why it stays so (X-SWC-Passthrough's
// "provider history: " reason): the request also names a stored response
// or conversation (whatever the order of its fields), some references
// name items swc does not hold, one item is named twice, or the items
// would make the request larger than --max-proxy-body. The body is decoded
// once.
func (s *Server) resolveItems(tenant string, body []byte) (resolved []byte, why string) {
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) != nil {
		return body, "item_reference"
	}
	for _, k := range []string{"previous_response_id", "conversation"} {
		if v := string(bytes.TrimSpace(req[k])); v != "" && v != "null" && v != `""` {
			return body, k
		}
	}
	var items []json.RawMessage
	if s.proxy.items == nil || json.Unmarshal(req["input"], &items) != nil {
		return body, "item_reference"
	}
	refs, unknown := 0, 0
	size, seen, twice := len(body), map[string]bool{}, false
	for i, raw := range items {
		var head struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(raw, &head) != nil || head.Type != "item_reference" {
			continue
		}
		refs++
		twice = twice || seen[head.ID]
		seen[head.ID] = true
		if it, held := s.proxy.items.Get(itemKey{tenant, head.ID}); held {
			items[i] = it.raw
			size += len(it.raw) - len(raw)
		} else {
			unknown++
		}
	}
	switch {
	case refs == 0:
		return body, "item_reference"
	case unknown > 0:
		return body, fmt.Sprintf("item_reference (%d of %d items not seen by swc)", unknown, refs)
	case twice || int64(size) > s.proxyMaxBody():
		// The provider answers; one item named again and again must not
		// make a small request a huge one here.
		return body, "item_reference (an item named twice, or the items over --max-proxy-body)"
	}
	var input bytes.Buffer
	input.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			input.WriteByte(',')
		}
		input.Write(it)
	}
	input.WriteByte(']')
	out, err := spliceMember(body, "input", func([]byte) ([]byte, error) { return input.Bytes(), nil })
	if err != nil {
		return body, "item_reference"
	}
	return out, ""
}
