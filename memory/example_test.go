package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
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
// consolidated history in one system message, the last 8 messages as they
// were.
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
	fmt.Printf("%d messages, %d tokens → %d messages, %d tokens (budget %d)\n",
		len(msgs), res.TokensBefore, len(res.Messages), res.Tokens, res.Budget)
	for _, m := range res.Messages[:4] {
		first, _, _ := strings.Cut(m.Content, "\n")
		if len(m.ToolCalls) > 0 {
			first += "[calls " + m.ToolCalls[0].Name + "]"
		}
		fmt.Printf("%s: %.60s\n", m.Role, first)
	}
	fmt.Println(strings.Join(strings.Split(res.Memory, "\n")[2:5], "\n"))
	// Output:
	// 93 messages, 3101 tokens → 11 messages, 1445 tokens (budget 1500)
	// system: You are Sol, Dana Whitfield's personal assistant. Be concise
	// system: Earlier conversation, consolidated (session dates in headers
	// assistant: [calls calendar_create_event]
	// tool: {"event_id": "ev_51", "status": "confirmed"}
	// [Session 1 — 9:12 am on 3 March, 2025]
	// Dana: Morning Sol. Big month ahead: I'm moving to a new apartment on 22 March, the one on Elm Street I told you about. Can you set a reminder to book movers this week [the week of 3 March 2025]?
	// Assistant: [tool reminders_create({"text": "Book movers for the 22 March move", "due": "2025-03-07T17:00:00Z"}) → {"id": "rem_81", "status": "created"}]
}

// The README's example (TestREADMEExample keeps the README's copy, the
// lines between the markers, equal to it): a request body or JSONL history
// in, compressed messages out.
func Example_readme() {
	ctx, body := context.Background(), chat.SampleJSONL()
	// README example begins
	opts := memory.DefaultOptions() // swc-anchored, the last 8 messages kept, offline engines
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
	// 3101 → 1445 tokens in 11 messages
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
	// compressed 3101 → 1465 tokens
	// upstream got 11 messages for gpt-4o, the first two system and system
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
// appended to the system prompt, so user/assistant alternation holds.
func ExampleAnthropicMiddleware() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			System []struct {
				Text string `json:"text"`
			} `json:"system"`
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		memory := body.System[len(body.System)-1].Text
		fmt.Printf("upstream got %d messages, the first from the %s, and %d system blocks, the last starting %.40q\n",
			len(body.Messages), body.Messages[0].Role, len(body.System), memory)
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
	// upstream got 10 messages, the first from the user, and 2 system blocks, the last starting "Earlier conversation, consolidated (sess"
	// Casa do Rio.
}

// Compress a LoCoMo conversation as chat messages.
func Example_loCoMo() {
	convs, err := locomo.Sample() // or locomo.LoadFile("locomo10.json")
	if err != nil {
		log.Fatal(err)
	}
	msgs := chat.FromConversation(convs[0])
	c, err := memory.New(memory.DefaultOptions())
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
