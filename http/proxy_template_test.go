package http_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
)

// strictTemplate reports why a server applying a strict chat template
// would refuse msgs (a Chat Completions messages array), as vLLM answers
// 400 when its template raises: Gemma 2's takes no system message and
// roles alternating from a user's ("System role not supported",
// "Conversation roles must alternate user/assistant/user/assistant/...");
// Qwen's takes a system message only first ("System message must be at
// the beginning."). "" when it takes them.
func strictTemplate(msgs []struct{ Role string }, gemma bool) string {
	for i, m := range msgs {
		switch {
		case gemma && m.Role == "system":
			return "System role not supported"
		case gemma && (m.Role == "user") != (i%2 == 0):
			return "Conversation roles must alternate user/assistant/user/assistant/..."
		case m.Role == "system" && i > 0:
			return "System message must be at the beginning."
		}
	}
	return ""
}

// TestProxyStrictTemplates: a chat whose client sends no system message
// (as clients of Gemma 2 must) goes through the proxy compressed at
// several budgets to an upstream that applies Gemma 2's or Qwen's chat
// template as vLLM does, answering 400 when it raises: swc adds no system
// message and keeps roles alternating, so every request is answered 200,
// and the memory is in the request the upstream got (at the start of the
// first message, a user's).
func TestProxyStrictTemplates(t *testing.T) {
	var msgs []swc.Message
	for i := range 60 {
		msgs = append(msgs,
			swc.Message{Role: swc.RoleUser, Content: fmt.Sprintf("Day %d: I repaired bike number %d and rode it to the lake at Vila %d. How far is that?", i, 100+i, i)},
			swc.Message{Role: swc.RoleAssistant, Content: fmt.Sprintf("About %d km. Bike %d should take it easily; the road past Vila %d is flat.", 10+i, 100+i, i)})
	}
	compressed, own := 0, 0
	for _, gemma := range []bool{true, false} {
		e := newProxyEnv(t, noRecall)
		e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
			var req struct{ Messages []struct{ Role string } }
			json.Unmarshal(body, &req)
			w.Header().Set("Content-Type", "application/json")
			if why := strictTemplate(req.Messages, gemma); why != "" {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"object":"error","message":%q,"type":"BadRequestError","param":null,"code":400}`, why)
				return
			}
			fmt.Fprint(w, `{"id":"cc-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`)
		}
		// Each prefix ending at a user's message, so the kept messages
		// start at either role as the budget moves the boundary.
		for _, budget := range []int{600, 900, 1500} {
			for end := 41; end <= len(msgs); end += 6 {
				name := fmt.Sprintf("gemma=%v budget=%d messages=%d", gemma, budget, end)
				body := openAIBody(t, msgs[:end], "")
				resp := e.post(t, "/v1/chat/completions", body, swchttp.HeaderBudget+": "+strconv.Itoa(budget))
				if got := readAll(t, resp); resp.StatusCode != http.StatusOK {
					t.Fatalf("%s: %d %s", name, resp.StatusCode, got)
				}
				sent, _ := e.up.last(t)
				if string(sent) == body {
					continue // it fits
				}
				compressed++
				if n := withinBudget(t, sent, chat.OpenAI, budget); resp.Header.Get(swchttp.HeaderTokensAfter) != strconv.Itoa(n) {
					t.Errorf("%s: %s %s; the upstream got %d", name, swchttp.HeaderTokensAfter, resp.Header.Get(swchttp.HeaderTokensAfter), n)
				}
				var req struct {
					Messages []struct{ Role, Content string }
				}
				json.Unmarshal(sent, &req)
				if len(req.Messages) == 0 || req.Messages[0].Role != "user" || !strings.HasPrefix(req.Messages[0].Content, "Earlier conversation, consolidated") {
					t.Errorf("%s: the first message sent is not the memory's: %.200s", name, sent)
				}
				if !strings.HasSuffix(req.Messages[0].Content, "How far is that?") {
					own++ // the memory a user message of its own
				}
			}
		}
	}
	if compressed < 20 || own == 0 || own == compressed {
		t.Errorf("%d requests compressed, %d with the memory a message of its own; want most of the 42, some of each kind", compressed, own)
	}
}
