package agents

import (
	"os"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// The upstream's answers as the official SDKs read them, without the npm
// programs: a 3-step loop in each protocol, streamed and not in turn,
// every request kept within the rules, the last answer the final one.
const sdkSteps = 3

// tool runs a call's command (the script's "cat FILE") the way an agent
// would, by reading the file.
func runCall(t *testing.T, args string) string {
	t.Helper()
	_, file, ok := strings.Cut(args, "cat ")
	if !ok {
		t.Fatalf("the call does not cat a file: %s", args)
	}
	b, err := os.ReadFile(strings.TrimRight(file, `"]}`))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func loopDone(t *testing.T, up *Upstream, final string) {
	t.Helper()
	st := up.Stats()
	for _, b := range st.Breaches {
		t.Errorf("breach: %v", b)
	}
	if !st.Finished || st.Step != sdkSteps || !strings.Contains(final, Done) {
		t.Errorf("finished %v at step %d, final answer %q", st.Finished, st.Step, final)
	}
}

func startSDKUpstream(t *testing.T) *Upstream {
	dir := t.TempDir()
	if err := WriteStepFiles(dir, sdkSteps); err != nil {
		t.Fatal(err)
	}
	up := StartUpstream(dir, sdkSteps)
	t.Cleanup(up.Close)
	return up
}

func TestUpstreamAnthropicSDK(t *testing.T) {
	up := startSDKUpstream(t)
	client := anthropic.NewClient(anthropicoption.WithoutEnvironmentDefaults(), anthropicoption.WithBaseURL(up.URL),
		anthropicoption.WithAPIKey("sk-test"), anthropicoption.WithMaxRetries(0))
	params := anthropic.MessageNewParams{Model: "claude-sonnet-4-6", MaxTokens: 1024, Thinking: anthropic.ThinkingConfigParamOfEnabled(1024),
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "Bash",
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"command": map[string]any{"type": "string"}}, Required: []string{"command"}}}}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Print the step files."))}}
	var final string
	for i := 0; i <= sdkSteps; i++ {
		var msg anthropic.Message
		if i%2 == 1 { // every other step without streaming
			m, err := client.Messages.New(t.Context(), params)
			if err != nil {
				t.Fatal(err)
			}
			msg = *m
		} else {
			stream := client.Messages.NewStreaming(t.Context(), params)
			for stream.Next() {
				if err := msg.Accumulate(stream.Current()); err != nil {
					t.Fatal(err)
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
		}
		var results []anthropic.ContentBlockParamUnion
		for _, b := range msg.Content {
			switch b.Type {
			case "thinking":
				if b.Signature != sign(b.Thinking) {
					t.Errorf("step %d: the thinking block's signature does not survive the stream", i+1)
				}
			case "tool_use":
				results = append(results, anthropic.NewToolResultBlock(b.ID, runCall(t, string(b.Input)), false))
			case "text":
				final = b.Text
			}
		}
		if len(results) == 0 {
			break
		}
		params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(results...))
	}
	loopDone(t, up, final)
}

func TestUpstreamResponsesSDK(t *testing.T) {
	up := startSDKUpstream(t)
	client := openai.NewClient(oaoption.WithBaseURL(up.URL+"/v1"), oaoption.WithAPIKey("sk-test"), oaoption.WithMaxRetries(0))
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("Print the step files.", responses.EasyInputMessageRoleUser)}
	var final string
	for i := 0; i <= sdkSteps; i++ {
		params := responses.ResponseNewParams{Model: "gpt-5",
			Input:     responses.ResponseNewParamsInputUnion{OfInputItemList: input},
			Reasoning: openai.ReasoningParam{Summary: openai.ReasoningSummaryAuto},
			Include:   []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
			Tools: []responses.ToolUnionParam{responses.ToolParamOfFunction("shell",
				map[string]any{"type": "object", "properties": map[string]any{"command": map[string]any{"type": "array"}}, "required": []string{"command"}}, false)}}
		var resp responses.Response
		if i%2 == 1 {
			r, err := client.Responses.New(t.Context(), params)
			if err != nil {
				t.Fatal(err)
			}
			resp = *r
		} else {
			stream := client.Responses.NewStreaming(t.Context(), params)
			for stream.Next() {
				if ev := stream.Current(); ev.Type == "response.completed" {
					resp = ev.Response
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
		}
		called := false
		for _, it := range resp.Output {
			switch it.Type {
			case "reasoning":
				r := it.AsReasoning()
				if r.EncryptedContent == "" {
					t.Errorf("step %d: a reasoning item without encrypted content", i+1)
				}
				p := r.ToParam()
				input = append(input, responses.ResponseInputItemUnionParam{OfReasoning: &p})
			case "function_call":
				fc := it.AsFunctionCall()
				p := fc.ToParam()
				out := responses.ResponseInputItemParamOfFunctionCallOutput(runCall(t, fc.Arguments))
				out.OfFunctionCallOutput.CallID = openai.String(fc.CallID)
				input = append(input, responses.ResponseInputItemUnionParam{OfFunctionCall: &p}, out)
				called = true
			case "message":
				final = resp.OutputText()
			}
		}
		if !called {
			break
		}
	}
	loopDone(t, up, final)
}

func TestUpstreamChatSDK(t *testing.T) {
	up := startSDKUpstream(t)
	client := openai.NewClient(oaoption.WithBaseURL(up.URL+"/v1"), oaoption.WithAPIKey("sk-test"), oaoption.WithMaxRetries(0))
	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Print the step files.")}
	tools := []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "read_file",
		Parameters: openai.FunctionParameters{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []string{"path"}}})}
	var final string
	for i := 0; i <= sdkSteps; i++ {
		params := openai.ChatCompletionNewParams{Model: "gpt-5", Messages: msgs, Tools: tools}
		var acc openai.ChatCompletion
		if i%2 == 1 {
			c, err := client.Chat.Completions.New(t.Context(), params)
			if err != nil {
				t.Fatal(err)
			}
			acc = *c
		} else {
			params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
			stream := client.Chat.Completions.NewStreaming(t.Context(), params)
			var sa openai.ChatCompletionAccumulator
			for stream.Next() {
				sa.AddChunk(stream.Current())
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			acc = sa.ChatCompletion
		}
		if len(acc.Choices) != 1 || acc.Usage.TotalTokens == 0 {
			t.Fatalf("step %d: %d choices, usage %+v", i+1, len(acc.Choices), acc.Usage)
		}
		m := acc.Choices[0].Message
		if len(m.ToolCalls) == 0 {
			final = m.Content
			break
		}
		msgs = append(msgs, m.ToParam())
		for _, c := range m.ToolCalls {
			_, path, _ := strings.Cut(c.Function.Arguments, `"path":"`)
			b, err := os.ReadFile(strings.TrimSuffix(path, `"}`))
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, openai.ToolMessage(string(b), c.ID))
		}
	}
	loopDone(t, up, final)
}
