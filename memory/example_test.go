package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/memory"
)

// Compress a chat history to a budget: system prompt first, the
// consolidated history in one system message, the messages after the
// epoch's boundary as they were. The next request — the history and two
// new messages — sends the same system and memory messages byte for byte,
// so the provider's prompt cache hits them.
func Example() {
	msgs, err := chat.Sample() // six weeks of an assistant's conversation, with tool calls
	if err != nil {
		log.Fatal(err)
	}
	opts := memory.DefaultOptions()
	opts.Budget = 1500
	c, err := memory.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.Compress(context.Background(), msgs)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d messages, %d tokens → %d messages, %d tokens (budget %d); the memory holds %d\n",
		len(msgs), res.TokensBefore, len(res.Messages), res.Tokens, res.Budget, res.Compacted)
	for _, m := range res.Messages[:4] {
		first, _, _ := strings.Cut(m.Content, "\n")
		if len(m.ToolCalls) > 0 {
			first += "[calls " + m.ToolCalls[0].Name + "]"
		}
		fmt.Printf("%s: %s\n", m.Role, strings.TrimSpace(fmt.Sprintf("%.60s", first)))
	}
	fmt.Println(strings.Join(strings.Split(res.Memory, "\n")[2:5], "\n"))

	next := append(msgs[:len(msgs):len(msgs)],
		swc.Message{Role: swc.RoleAssistant, Content: "Anything else for the move?"},
		swc.Message{Role: swc.RoleUser, Content: "Remind me about the deposit."})
	res2, err := c.Compress(context.Background(), next)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("next request: %d messages, the same first %d: %v\n", len(res2.Messages), len(res.Messages),
		reflect.DeepEqual(res2.Messages[:len(res.Messages)], res.Messages))
	// Output:
	// 93 messages, 3101 tokens → 8 messages, 799 tokens (budget 1500); the memory holds 86
	// system: You are Sol, Dana Whitfield's personal assistant. Be concise
	// system: Earlier conversation, consolidated (session dates in headers
	// user: I ran the 10K yesterday in 54:12! Priya cried at the finish
	// assistant: 54:12 on your first 10K, brilliant! That's a pace of about 5
	// [Session 1 — 3 March 2025]
	// Dana: … Big month ahead: I'm moving to a new apartment on 22 March, the one on Elm Street I told you about. …
	// …
	// next request: 10 messages, the same first 8: true
}

// The README's example (TestREADMEExample keeps the README's copy, the
// lines between the markers, equal to it): a request body or JSONL history
// in, compressed messages out.
func Example_readme() {
	ctx, body := context.Background(), chat.SampleJSONL()
	// README example begins
	opts := memory.DefaultOptions() // epochs, swc-select, offline engines
	opts.Budget = 1500              // tokens (cl100k_base); the default is 4,000
	c, err := memory.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	in, err := chat.Parse(body, chat.Auto) // an OpenAI or Anthropic request body, or JSONL messages
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.Compress(ctx, in.Messages)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.TokensBefore, "→", res.Tokens, "tokens in", len(res.Messages), "messages") // send res.Messages
	// README example ends

	// Output:
	// 3101 → 799 tokens in 8 messages
}

// Wrap the official openai-go client: every Chat Completions request's
// history is compressed in-process before it leaves.
func ExampleOpenAIMiddleware() {
	// A stand-in for api.openai.com that reports what it receives.
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model    string `json:"model"`
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		fmt.Printf("upstream got %d messages for %s, the first two %s and %s\n", len(body.Messages), body.Model, body.Messages[0].Role, body.Messages[1].Role)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"cc-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Casa do Rio."}}]}`)
	}))
	defer upstream.Close()

	opts := memory.DefaultOptions()
	opts.Budget = 1500
	comp, err := memory.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	client := openai.NewClient(
		option.WithBaseURL(upstream.URL),
		option.WithAPIKey("sk-test"),
		option.WithMiddleware(memory.OpenAIMiddleware(comp, func(res *memory.Result, err error) {
			if err == nil {
				fmt.Printf("compressed %d → %d tokens\n", res.TokensBefore, res.Tokens)
			}
		})),
	)
	msgs, _ := chat.Sample()
	params := openai.ChatCompletionNewParams{Model: openai.ChatModelGPT4o, Messages: toOpenAI(msgs)}
	reply, err := client.Chat.Completions.New(context.Background(), params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Choices[0].Message.Content)
	// Output:
	// compressed 3101 → 798 tokens
	// upstream got 7 messages for gpt-4o, the first two system and user
	// Casa do Rio.
}

// toOpenAI converts messages to openai-go parameters through their wire
// form.
func toOpenAI(msgs []swc.Message) []openai.ChatCompletionMessageParamUnion {
	b, err := json.Marshal(chat.OpenAIMessages(msgs))
	if err != nil {
		log.Fatal(err)
	}
	var out []openai.ChatCompletionMessageParamUnion
	if err := json.Unmarshal(b, &out); err != nil {
		log.Fatal(err)
	}
	return out
}

// Wrap the official anthropic-sdk-go client the same way: the memory is
// appended to the system prompt, so user/assistant alternation holds, as
// a block with a cache_control mark (the client's own marks leave room).
func ExampleAnthropicMiddleware() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			System []struct {
				Text         string          `json:"text"`
				CacheControl json.RawMessage `json:"cache_control"`
			} `json:"system"`
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		memory := body.System[len(body.System)-1]
		fmt.Printf("upstream got %d messages, the first from the %s, and %d system blocks, the last starting %.40q, marked %s\n",
			len(body.Messages), body.Messages[0].Role, len(body.System), memory.Text, memory.CacheControl)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"Casa do Rio."}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
	}))
	defer upstream.Close()

	opts := memory.DefaultOptions()
	opts.Budget = 1500
	comp, err := memory.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	client := anthropic.NewClient(
		anthropicoption.WithoutEnvironmentDefaults(),
		anthropicoption.WithBaseURL(upstream.URL),
		anthropicoption.WithAPIKey("sk-ant-test"),
		anthropicoption.WithMiddleware(memory.AnthropicMiddleware(comp, nil)),
	)
	msgs, _ := chat.Sample()
	req := chat.ToAnthropic(msgs)
	b, _ := json.Marshal(req.Messages)
	var params anthropic.MessageNewParams
	if err := json.Unmarshal(b, &params.Messages); err != nil {
		log.Fatal(err)
	}
	params.Model, params.MaxTokens = "claude-haiku-4-5", 256
	params.System = []anthropic.TextBlockParam{{Text: req.System}}
	reply, err := client.Messages.New(context.Background(), params)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Content[0].Text)
	// Output:
	// upstream got 6 messages, the first from the user, and 2 system blocks, the last starting "Earlier conversation, consolidated (sess", marked {"type":"ephemeral"}
	// Casa do Rio.
}

// Compress a LoCoMo conversation as chat messages, the whole history
// re-planned (Replan) with SWC.
func Example_loCoMo() {
	convs, err := locomo.Sample() // or locomo.LoadFile("locomo10.json")
	if err != nil {
		log.Fatal(err)
	}
	msgs := chat.FromConversation(convs[0])
	opts := memory.DefaultOptions()
	opts.Compaction, opts.Strategy = memory.Replan, "swc-anchored"
	c, err := memory.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.Compress(context.Background(), msgs)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d sessions (%s), %d → %d tokens\n", len(res.Sessions), res.Rule, res.TokensBefore, res.Tokens)
	for _, ch := range res.Context.Chunks[:3] {
		fmt.Printf("session %d: %s\n", ch.Session+1, ch.Action)
	}
	// Output:
	// 12 sessions (session ids), 8733 → 3902 tokens
	// session 1: verbatim
	// session 2: dropped
	// session 3: gist
}
