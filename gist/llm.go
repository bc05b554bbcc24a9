package gist

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	swc "github.com/swcmem/swc"
)

// The gist prompts. PromptFull and PromptTemporal are the paper's, verbatim;
// the summary prompts serve the sliding-window baseline. Each temporal variant is TemporalPreamble followed by its base.
const (
	PromptFull = "Preserve: factual information about the speakers, causal relationships, " +
		"decisions and their rationale, open commitments or plans. Discard: small talk, " +
		"repeated information, emotional reactions without factual content. Output a concise " +
		"paragraph of 3–5 sentences maximum."
	TemporalPreamble = "You MUST preserve verbatim: all specific dates, times, durations, ages, " +
		"and temporal expressions (e.g. '7 May', 'last Tuesday', 'at 9pm'). "
	PromptTemporal = TemporalPreamble + PromptFull

	PromptSummary = "Summarise the earlier part of this conversation into one running summary. " +
		"Retain key facts, events, and decisions, saying which speaker each belongs to. " +
		"Discard small talk and repeated information. Output concise prose only."
	PromptSummaryTemporal = TemporalPreamble + PromptSummary
)

// Prompt returns the system prompt of a variant, or an EINVALID error for
// an unknown variant.
func Prompt(v swc.GistVariant) (string, error) {
	switch v {
	case swc.GistFull:
		return PromptFull, nil
	case swc.GistTemporal:
		return PromptTemporal, nil
	case swc.GistSummary:
		return PromptSummary, nil
	case swc.GistSummaryTemporal:
		return PromptSummaryTemporal, nil
	}
	return "", swc.Errorf(swc.EINVALID, "gist: unknown variant %q", v)
}

// PromptHash returns the hex SHA-256 of the variant's exact system prompt
// text, or "" for an unknown variant. REM cache keys of the LLM gister use
// LLM.PromptHash, which also covers the user message and max_tokens.
func PromptHash(v swc.GistVariant) string {
	p, err := Prompt(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:])
}

// DefaultMaxTokens bounds an LLM gist's length.
const DefaultMaxTokens = 512

// UserTemplate is the user message of a gist request: {date} is the
// session date, {text} the rendered chunk. Without a date the message is
// the text alone.
const UserTemplate = "Session date: {date}\n\n{text}"

// truncated reports whether a stop reason means the reply was cut off at
// the token limit (Anthropic "max_tokens", OpenAI "length").
func truncated(stop string) bool { return stop == "max_tokens" || stop == "length" }

// checkGist rejects a gist reply cut off at the token limit.
func checkGist(r swc.LLMResponse) error {
	if truncated(r.StopReason) {
		return swc.Errorf(swc.EUNAVAILABLE, "gist cut off at the token limit (stop reason %q)", r.StopReason)
	}
	return nil
}

// LLM is a gister that asks a chat model for the gist: the variant's
// prompt as the system message, and "Session date: {date}\n\n{text}" (just
// the text when the date is empty) as the user message, at temperature 0,
// with Purpose "gist".
type LLM struct {
	llm swc.LLM
	// MaxTokens bounds the reply (default DefaultMaxTokens).
	MaxTokens int
}

var _ swc.Gister = (*LLM)(nil)

// NewLLM returns a gister on l.
func NewLLM(l swc.LLM) *LLM { return &LLM{llm: l} }

// Name returns "llm:" followed by the model's name, e.g.
// "llm:anthropic:claude-haiku-4-5-20251001".
func (g *LLM) Name() string { return "llm:" + g.llm.Name() }

// Request returns the chat request Gist sends for req, or an EINVALID
// error for an unknown variant.
func (g *LLM) Request(req swc.GistRequest) (swc.LLMRequest, error) {
	prompt, err := Prompt(req.Variant)
	if err != nil {
		return swc.LLMRequest{}, err
	}
	input := req.Text
	if req.Date != "" {
		input = strings.NewReplacer("{date}", req.Date, "{text}", req.Text).Replace(UserTemplate)
	}
	return swc.LLMRequest{
		System:      prompt,
		Messages:    []swc.Message{{Role: swc.RoleUser, Content: input}},
		Temperature: 0,
		MaxTokens:   g.maxTokens(),
		Purpose:     "gist",
		Check:       checkGist,
	}, nil
}

func (g *LLM) maxTokens() int {
	if g.MaxTokens <= 0 {
		return DefaultMaxTokens
	}
	return g.MaxTokens
}

// PromptHash returns the hex SHA-256 of everything besides the chunk that
// shapes a gist of variant v: the system prompt, UserTemplate and
// max_tokens, for REM cache keys (changing any of them invalidates the
// stored gists). It returns "" for an unknown variant.
func (g *LLM) PromptHash(v swc.GistVariant) string {
	p, err := Prompt(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00max_tokens=%d", p, UserTemplate, g.maxTokens()))
	return hex.EncodeToString(sum[:])
}

// Gist returns the model's gist of req, trimmed. It returns "" with no
// error for empty or whitespace-only text (without calling the model), an
// EINVALID error for an unknown variant, the model's error as it is (it names the provider and model), and an
// EUNAVAILABLE error when the model replies with nothing but whitespace
// or its reply was cut off at max_tokens (a cache keeps neither, so a
// rerun asks again).
func (g *LLM) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	lreq, err := g.Request(req)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(req.Text) == "" {
		return "", nil
	}
	resp, err := g.llm.Complete(ctx, lreq)
	if err != nil {
		return "", err // it names the provider, model and cause (swc.LLM)
	}
	if err := checkGist(resp); err != nil {
		return "", fmt.Errorf("gist: %s: %w", g.Name(), err)
	}
	out := strings.TrimSpace(resp.Text)
	if out == "" {
		return "", swc.Errorf(swc.EUNAVAILABLE, "gist: %s returned an empty gist (stop reason %q)", g.Name(), resp.StopReason)
	}
	return out, nil
}
