package swc

import (
	"context"
	"time"
)

// Role of a chat message.
type Role string

// Message roles. System and developer messages are instructions, never
// compressed; tool messages carry the result of an assistant's tool call.
const (
	RoleSystem    Role = "system"
	RoleDeveloper Role = "developer"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one chat message in a provider-neutral form: what an LLM
// adapter sends (Role and Content only) and what an agent's history holds.
// Content is the message's text; parts that are not text are
// kept as a placeholder naming their type ("[image]").
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`

	// ID identifies the message within its conversation (optional; the
	// service skips a message whose ID it already stored).
	ID string `json:"id,omitempty"`
	// Name is the speaker's name, when the format carries one.
	Name string `json:"name,omitempty"`
	// ToolCalls are the tool calls an assistant message makes.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is, for a tool message, the ID of the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Time is when the message was sent; zero when unknown.
	Time time.Time `json:"timestamp,omitzero"`
	// Session is an explicit session id; empty lets sessionisation decide.
	Session string `json:"session,omitempty"`
	// MediaTokens are the tokens of the parts Content holds placeholders
	// for ("[input_image]", "[thinking]", "[document]": images, PDFs,
	// reasoning), counted in the message's cost; 0 when none.
	MediaTokens int `json:"media_tokens,omitempty"`
	// ReasoningTokens are the tokens of reasoning the request carries
	// with the message that its Content does not show (a Responses
	// reasoning item's encrypted content), counted in the message's cost
	// and sent with it whatever its text becomes; 0 when none.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// InPlace marks a system message that belongs where it stands in the
	// conversation (an Anthropic mid-conversation system message, in
	// "messages" rather than "system"): it is history, not an instruction
	// (IsInstruction), so compression keeps it in its place or
	// consolidates it with the messages around it, never moves it first.
	InPlace bool `json:"in_place,omitempty"`
	// LoadsTools marks a message that loads deferred tools: a tool
	// result (an Anthropic tool_result holding tool_reference blocks, a
	// Responses tool_search_output) or an assistant message holding the
	// result of a tool search the provider ran (an Anthropic
	// tool_search_tool_result block; a Responses tool_search_output
	// without a call id, which goes with its call). The provider takes the
	// definitions of the tools it names from it, so compression keeps it
	// and its call whatever the budget (chat's readers set it).
	LoadsTools bool `json:"loads_tools,omitempty"`
}

// ToolCall is one call of a tool by an assistant message. Arguments is the
// call's JSON arguments as text, unchanged.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// LLMRequest is a provider-neutral chat request.
type LLMRequest struct {
	System      string    `json:"system,omitempty"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens"`
	Stop        []string  `json:"stop,omitempty"`
	// Purpose labels the call for usage accounting: "gist", "qa", "judge".
	Purpose string `json:"-"`
	// Check, when set, says whether a reply is usable: nil, or why not (a
	// judge reply that is neither YES nor NO, a gist cut off at
	// max_tokens). A response cache stores only replies Check accepts and
	// asks the model again rather than replay a stored reply it rejects.
	// It is neither sent nor part of a cache key.
	Check func(LLMResponse) error `json:"-"`
}

// Usage counts tokens of one or more calls.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	Calls        int `json:"calls"`
	CacheHits    int `json:"cache_hits"`
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.InputTokens + v.InputTokens, u.OutputTokens + v.OutputTokens, u.Calls + v.Calls, u.CacheHits + v.CacheHits}
}

// LLMResponse is a provider-neutral chat response.
type LLMResponse struct {
	Text       string `json:"text"`
	Model      string `json:"model"`
	StopReason string `json:"stop_reason,omitempty"`
	Usage      Usage  `json:"usage"`
	Cached     bool   `json:"cached,omitempty"`
}

// WireKeyer is implemented by an LLM whose request on the wire is not all
// of the LLMRequest (Anthropic's API version 2026-10-21 takes no
// temperature). WireKey describes what it sends for req beyond the
// messages — API version, which parameters go out and their values — so
// that a response cache keys on the request as sent and replies to
// different wire requests never mix.
type WireKeyer interface {
	WireKey(req LLMRequest) string
}

// LLM is a chat model.
type LLM interface {
	// Name returns "provider:model".
	Name() string
	// Complete returns the model's reply, or an error naming the provider,
	// model, status and attempts when the call finally fails. A failure is
	// never turned into an empty reply.
	Complete(ctx context.Context, req LLMRequest) (LLMResponse, error)
}
