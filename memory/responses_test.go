package memory

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/swcmem/swc/chat"
)

func TestResponsesMiddleware(t *testing.T) {
	msgs, err := chat.Sample()
	if err != nil {
		t.Fatal(err)
	}
	instr, items := chat.ResponsesInput(msgs)
	ib, _ := json.Marshal(items)
	body := []byte(`{"model":"gpt-5", "instructions":` + quote(instr) + `, "input":` + string(ib) + `,"store":false,"x":{"y":1}}`)
	for _, keep := range []int{0, 1, 2, 3, 8} {
		o := DefaultOptions()
		o.Budget, o.KeepRecent = 1500, keep
		c := mustNew(t, o)
		var got *Result
		mw := ResponsesMiddleware(c, func(r *Result, err error) {
			if err != nil {
				t.Fatal(err)
			}
			got = r
		})
		var cp capture
		if _, err := mw(post(t, "https://api.openai.com/v1/responses", body), cp.next); err != nil {
			t.Fatal(err)
		}
		in, err := chat.Parse(cp.body, chat.Responses)
		if err != nil {
			t.Fatalf("keep %d: the compressed request does not parse: %v\n%.300s", keep, err, cp.body)
		}
		if got == nil || got.Tokens > 1500 || c.CountMessages(in.Messages) != got.Tokens {
			t.Fatalf("keep %d: result %+v; sent %d tokens", keep, got, c.CountMessages(in.Messages))
		}
		// Outside input, every byte as it came.
		orig, _ := chat.Parse(body, chat.Responses)
		if !bytes.Equal(cp.body[:in.Span[0]], body[:orig.Span[0]]) || !bytes.Equal(cp.body[in.Span[1]:], body[orig.Span[1]:]) {
			t.Errorf("keep %d: the body outside input changed:\n%s", keep, cp.body)
		}
		// The memory is the first item; the kept items are the input's last.
		if in.Messages[1].Role != "developer" || !bytes.Contains(in.Raw[0], []byte(Preamble[:20])) {
			t.Errorf("keep %d: first item %.100s", keep, in.Raw[0])
		}
		for k := 1; k < len(in.Raw); k++ {
			if !bytes.Equal(in.Raw[len(in.Raw)-k], orig.Raw[len(orig.Raw)-k]) {
				t.Errorf("keep %d: kept item -%d changed", keep, k)
			}
		}
	}
	// Provider-side histories, other routes and requests that fit pass
	// unchanged.
	for _, tc := range []struct{ url, body string }{
		{"https://api.openai.com/v1/responses", `{"model":"m","previous_response_id":"resp_1","input":` + string(ib) + `}`},
		{"https://api.openai.com/v1/responses/compact", string(body)},
		{"https://api.openai.com/v1/responses", `{"model":"m","input":"hi"}`},
	} {
		var cp capture
		if _, err := ResponsesMiddleware(mustNew(t, DefaultOptions()), nil)(post(t, tc.url, []byte(tc.body)), cp.next); err != nil {
			t.Fatal(err)
		}
		if string(cp.body) != tc.body {
			t.Errorf("%s: body changed", tc.url)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
