package openai

import (
	"sort"
	"strings"

	"github.com/swcmem/swc"
)

// toChatParams translates req into a chat-completions request for model,
// using maxTokens when req.MaxTokens is 0. The system prompt becomes a
// leading "system" message. Temperature is always sent, 0 included. The
// output limit goes out as max_completion_tokens (OpenAI deprecated
// max_tokens, and its reasoning models reject it), or as max_tokens when
// legacy is true, for servers that know only that (Ollama, LM Studio).
//
// It returns an EINVALID *swc.Error, prefixed with provider, for a request
// without messages or with a role other than user or assistant.
func toChatParams(req swc.LLMRequest, provider, model string, maxTokens int, legacy bool) (chatRequest, error) {
	if len(req.Messages) == 0 {
		return chatRequest{}, swc.Errorf(swc.EINVALID, "%s: %s: request has no messages", provider, model)
	}
	p := chatRequest{
		Model:       model,
		Temperature: req.Temperature,
		MaxTokens:   maxTokens,
		Messages:    make([]chatMessage, 0, len(req.Messages)+1),
		Stop:        req.Stop,
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = req.MaxTokens
	}
	if !legacy {
		p.MaxCompletionTokens, p.MaxTokens = p.MaxTokens, 0
	}
	if req.System != "" {
		p.Messages = append(p.Messages, chatMessage{Role: "system", Content: req.System})
	}
	for i, m := range req.Messages {
		switch m.Role {
		case swc.RoleUser:
			p.Messages = append(p.Messages, chatMessage{Role: "user", Content: m.Content})
		case swc.RoleAssistant:
			p.Messages = append(p.Messages, chatMessage{Role: "assistant", Content: m.Content})
		default:
			return chatRequest{}, swc.Errorf(swc.EINVALID, "%s: %s: message %d has role %q (want user or assistant)", provider, model, i, m.Role)
		}
	}
	return p, nil
}

// fromChat translates a chat completion: the first choice's content, its
// finish reason and token usage (one call). It returns an EUNAVAILABLE
// *swc.Error when there is no choice or the content is blank (a refusal
// included), so that a failure never reads as an empty answer.
func fromChat(c *chatCompletion, provider, model string) (swc.LLMResponse, error) {
	if len(c.Choices) == 0 {
		return swc.LLMResponse{}, swc.Errorf(swc.EUNAVAILABLE, "%s: %s: reply has no choices", provider, model)
	}
	ch := c.Choices[0]
	if strings.TrimSpace(ch.Message.Content) == "" {
		why := "finish_reason " + ch.FinishReason
		if ch.Message.Refusal != "" {
			why = "refusal: " + ch.Message.Refusal
		}
		return swc.LLMResponse{}, swc.Errorf(swc.EUNAVAILABLE, "%s: %s: empty reply (%s)", provider, model, why)
	}
	if c.Model != "" {
		model = c.Model
	}
	return swc.LLMResponse{
		Text:       ch.Message.Content,
		Model:      model,
		StopReason: ch.FinishReason,
		Usage: swc.Usage{
			InputTokens:  int(c.Usage.PromptTokens),
			OutputTokens: int(c.Usage.CompletionTokens),
			Calls:        1,
		},
	}, nil
}

// toEmbeddingParams asks for float vectors of texts.
func toEmbeddingParams(texts []string, model string) embeddingRequest {
	return embeddingRequest{Model: model, Input: texts, EncodingFormat: "float"}
}

// fromEmbeddings returns the n vectors of an embeddings response in input
// order (servers may return data out of order; index says where each
// goes) and the tokens used. It returns an EUNAVAILABLE *swc.Error when an
// index is missing, repeated or out of range or the dimensions differ.
func fromEmbeddings(r *embeddingResponse, n int, provider, model string) ([][]float32, swc.Usage, error) {
	if len(r.Data) != n {
		return nil, swc.Usage{}, swc.Errorf(swc.EUNAVAILABLE, "%s: %s: %d embeddings for %d texts", provider, model, len(r.Data), n)
	}
	data := append([]embedding(nil), r.Data...)
	sort.SliceStable(data, func(i, j int) bool { return data[i].Index < data[j].Index })
	out := make([][]float32, n)
	for i, d := range data {
		if d.Index != int64(i) {
			return nil, swc.Usage{}, swc.Errorf(swc.EUNAVAILABLE, "%s: %s: embedding indices are not 0..%d", provider, model, n-1)
		}
		if len(d.Embedding) == 0 || len(d.Embedding) != len(data[0].Embedding) {
			return nil, swc.Usage{}, swc.Errorf(swc.EUNAVAILABLE, "%s: %s: embedding %d has %d dimensions, want %d", provider, model, i, len(d.Embedding), len(data[0].Embedding))
		}
		v := make([]float32, len(d.Embedding))
		for k, x := range d.Embedding {
			v[k] = float32(x)
		}
		out[i] = v
	}
	return out, swc.Usage{InputTokens: int(r.Usage.PromptTokens), Calls: 1}, nil
}
