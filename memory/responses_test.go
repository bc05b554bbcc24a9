package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
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
		// The result counts the memory as a message of its own; written
		// into the first user's message it saves that message's overhead.
		if n := c.CountMessages(in.Messages); got == nil || got.Tokens > 1500 || n > got.Tokens || n < got.Tokens-MessageOverhead {
			t.Fatalf("keep %d: result %+v; sent %d tokens", keep, got, c.CountMessages(in.Messages))
		}
		// Outside input, every byte as it came.
		orig, _ := chat.Parse(body, chat.Responses)
		if !bytes.Equal(cp.body[:in.Span[0]], body[:orig.Span[0]]) || !bytes.Equal(cp.body[in.Span[1]:], body[orig.Span[1]:]) {
			t.Errorf("keep %d: the body outside input changed:\n%s", keep, cp.body)
		}
		// The memory starts the first item, a user's (of its own, or the
		// first kept when that is a user's message); the kept items are the
		// input's last.
		if in.Messages[1].Role != "user" || !strings.HasPrefix(in.Messages[1].Content, Preamble) {
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

// TestResponsesPreambleKeepsReasoning: a reasoning model's turn in the
// Responses API is a reasoning item, a message item (its preamble) and a
// function_call; the API refuses a call sent without its reasoning item.
// Over replayed requests of such a loop at budgets that stub, clip and
// drop, every call sent keeps the reasoning item and the message item
// that came before it, and old turns are clipped in the message item.
func TestResponsesPreambleKeepsReasoning(t *testing.T) {
	var items []string
	items = append(items, `{"role":"user","content":"Fix the failing parser test."}`)
	var cuts []int
	for k := range 30 {
		cuts = append(cuts, len(items))
		prose := fmt.Sprintf("Step %d: I print part %d of the parser next. ", k, k) + strings.Repeat(fmt.Sprintf("The header value of part %d is read before its encoding is known, so names drift. ", k), 4)
		items = append(items,
			fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[],"encrypted_content":"enc%d"}`, k, k),
			fmt.Sprintf(`{"type":"message","role":"assistant","id":"msg_%d","status":"completed","content":[{"type":"output_text","text":%s,"annotations":[]}]}`, k, quote(prose)),
			fmt.Sprintf(`{"type":"function_call","id":"fc_%d","call_id":"call_%d","name":"shell","arguments":"{\"cmd\":\"sed -n %d,%dp parser.py\"}"}`, k, k, 10*k, 10*k+120),
			fmt.Sprintf(`{"type":"function_call_output","call_id":"call_%d","output":%s}`, k, quote(strings.Repeat(fmt.Sprintf("%d\tdef parse_part_%d(value, encoding):\n", 100+k, k), 60))))
	}
	for _, budget := range []int{3000, 8000, 16000} {
		o := DefaultOptions()
		o.Budget = budget
		c := mustNew(t, o)
		clipped := 0
		for _, cut := range cuts[2:] {
			body := []byte(`{"model":"gpt-5","input":[` + strings.Join(items[:cut], ",") + `],"store":false}`)
			res, sent, _ := sendBodyIn(t, c, body, chat.Responses)
			var req struct{ Input []map[string]any }
			if err := json.Unmarshal(sent, &req); err != nil {
				t.Fatal(err)
			}
			for i, it := range req.Input {
				if it["type"] != "function_call" {
					continue
				}
				k := strings.TrimPrefix(it["id"].(string), "fc_")
				if i < 2 || req.Input[i-1]["id"] != "msg_"+k || req.Input[i-2]["id"] != "rs_"+k {
					t.Fatalf("budget %d, cut %d: call fc_%s sent without its reasoning and message items before it", budget, cut, k)
				}
			}
			for _, r := range res.Recall {
				if r.First == -1 {
					clipped++
				}
			}
		}
		if clipped == 0 {
			t.Errorf("budget %d: no turn clipped", budget)
		}
	}
}
