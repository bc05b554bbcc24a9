package anthropic

import (
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/swcmem/swc"
)

// toParams translates req into a Messages API request for model, using
// maxTokens when req.MaxTokens is 0. The system prompt goes to the
// top-level system field.
//
// req.Temperature is not among the params: API version 2026-10-21, which
// this SDK speaks, removed temperature/top_p/top_k and answers 400 to any
// of them (the SDK has no field for them either). With an older
// Config.APIVersion, Complete adds it to the body (option.WithJSONSet).
//
// It returns an EINVALID *swc.Error for a request without messages or
// with a role other than user or assistant.
func toParams(req swc.LLMRequest, model string, maxTokens int) (anthropic.MessageNewParams, error) {
	if len(req.Messages) == 0 {
		return anthropic.MessageNewParams{}, swc.Errorf(swc.EINVALID, "anthropic: %s: request has no messages", model)
	}
	p := anthropic.MessageNewParams{
		Model:     model,
		MaxTokens: int64(maxTokens),
		Messages:  make([]anthropic.MessageParam, 0, len(req.Messages)),
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	if len(req.Stop) > 0 {
		p.StopSequences = req.Stop
	}
	for i, m := range req.Messages {
		block := anthropic.NewTextBlock(m.Content)
		switch m.Role {
		case swc.RoleUser:
			p.Messages = append(p.Messages, anthropic.NewUserMessage(block))
		case swc.RoleAssistant:
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(block))
		default:
			return anthropic.MessageNewParams{}, swc.Errorf(swc.EINVALID, "anthropic: %s: message %d has role %q (want user or assistant)", model, i, m.Role)
		}
	}
	return p, nil
}

// fromMessage translates a Messages API response: the text blocks joined,
// the stop reason and token usage (one call). It returns an EUNAVAILABLE
// *swc.Error when the reply holds no text but white space, so that a failure never reads
// as an empty answer.
func fromMessage(msg *anthropic.Message, model string) (swc.LLMResponse, error) {
	var b strings.Builder
	for _, c := range msg.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return swc.LLMResponse{}, swc.Errorf(swc.EUNAVAILABLE, "anthropic: %s: empty reply (stop_reason %q)", model, msg.StopReason)
	}
	if msg.Model != "" {
		model = msg.Model
	}
	return swc.LLMResponse{
		Text:       b.String(),
		Model:      model,
		StopReason: string(msg.StopReason),
		Usage: swc.Usage{
			InputTokens:  int(msg.Usage.InputTokens),
			OutputTokens: int(msg.Usage.OutputTokens),
			Calls:        1,
		},
	}, nil
}
