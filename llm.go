package swc

import "context"

// Role of a chat message.
type Role string

// Message roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
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

// LLM is a chat model.
type LLM interface {
	// Name returns "provider:model".
	Name() string
	// Complete returns the model's reply, or an error naming the provider,
	// model, status and attempts when the call finally fails. A failure is
	// never turned into an empty reply.
	Complete(ctx context.Context, req LLMRequest) (LLMResponse, error)
}
