package http_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	swchttp "github.com/swcmem/swc/http"
)

// TestProxyAnthropicConsecutiveUsers: the Messages API takes two user
// messages in a row (it merges them), so a chat may hold them anywhere —
// an edit, a retry, a client that sends a note on its own. Wherever the
// pair falls against the kept tail's boundary, what swc forwards starts
// with a user message, holds no two assistant messages in a row and no
// pair of user messages the client did not send (one kept in the tail
// goes as it came, which the API reads as one turn), and the note is
// kept where the tail holds it. A request that fits goes as it came.
func TestProxyAnthropicConsecutiveUsers(t *testing.T) {
	e := newProxyEnv(t)
	const turns = 40
	compressed := 0
	for _, budget := range []int{1000, 3000} {
		for at := turns - 8; at < turns; at++ {
			var msgs []string
			for i := range turns {
				msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":"Day %d: I repaired the %s bike and rode %d km along the river to Lisbon's old harbour."}`, i, []string{"red", "blue", "green", "black"}[i%4], 10+i))
				if i == at {
					msgs = append(msgs, `{"role":"user","content":[{"type":"text","text":"One more note: my sister Priya lends me her pump."}]}`)
				}
				msgs = append(msgs, fmt.Sprintf(`{"role":"assistant","content":"Noted day %d: %d km on the %s bike."}`, i, 10+i, []string{"red", "blue", "green", "black"}[i%4]))
			}
			msgs = append(msgs, `{"role":"user","content":"What did my sister lend me?"}`)
			body := `{"model":"claude-haiku-4-5","max_tokens":256,"system":"You are a helpful assistant.","messages":[` + strings.Join(msgs, ",") + `]}`
			resp := e.post(t, "/v1/messages", body, swchttp.HeaderBudget+": "+fmt.Sprint(budget))
			readAll(t, resp)
			if resp.StatusCode != 200 || resp.Header.Get(swchttp.HeaderMode) == "passthrough" {
				t.Fatalf("budget %d, pair at %d: status %d, mode %q %s", budget, at, resp.StatusCode, resp.Header.Get(swchttp.HeaderMode), resp.Header.Get(swchttp.HeaderPassthrough))
			}
			got, _ := e.up.last(t)
			if resp.Header.Get(swchttp.HeaderMode) == "fits" {
				if string(got) != body {
					t.Errorf("budget %d, pair at %d: a request that fits was not sent as it came", budget, at)
				}
				continue
			}
			compressed++
			var req struct {
				Messages []struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(got, &req); err != nil {
				t.Fatal(err)
			}
			if len(req.Messages) == 0 || req.Messages[0].Role != "user" {
				t.Fatalf("budget %d, pair at %d: the forwarded messages do not open with a user's", budget, at)
			}
			pairs := 0
			for i := 1; i < len(req.Messages); i++ {
				switch a, b := req.Messages[i-1].Role, req.Messages[i].Role; {
				case a == "assistant" && b == "assistant":
					t.Errorf("budget %d, pair at %d: messages[%d] and [%d] are both the assistant's", budget, at, i-1, i)
				case a == "user" && b == "user":
					pairs++
				}
			}
			if pairs > 1 {
				t.Errorf("budget %d, pair at %d: %d pairs of user messages, the client sent one", budget, at, pairs)
			}
			if at >= turns-2 && !strings.Contains(string(got), "Priya lends me her pump") {
				t.Errorf("budget %d, pair at %d: the note in the kept tail went missing", budget, at)
			}
		}
	}
	if compressed < 8 {
		t.Errorf("%d of the requests were compressed, want at least 8", compressed)
	}
}
