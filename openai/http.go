package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// This package speaks the OpenAI wire protocol with net/http rather than
// through github.com/openai/openai-go: the SDK's root package, which holds
// chat completions and embeddings, imports and registers every API it
// knows (responses, realtime, live, …), and that alone added about 30 MB
// to the swc binary for two endpoints. The request and response types below
// are the documented JSON of POST /chat/completions and POST /embeddings.

// client posts JSON to an OpenAI-compatible server.
type client struct {
	baseURL string // with /v1
	apiKey  string // "" sends no Authorization header
	http    *http.Client
}

func newClient(apiKey string, cfg Config) *client {
	return &client{baseURL: strings.TrimRight(cfg.BaseURL, "/"), apiKey: apiKey, http: cfg.HTTPClient}
}

// maxErrorBody is how much of an error response is read.
const maxErrorBody = 1 << 20

// post sends body as JSON to baseURL+path and decodes a 2xx reply into out.
// Other statuses return an *apiError; transport failures, truncated and
// malformed bodies return the underlying error (a *url.Error, an
// io.ErrUnexpectedEOF, a *json.SyntaxError), which retry.Transport
// classifies.
func (c *client) post(ctx context.Context, path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		e := &apiError{Status: resp.StatusCode, Header: resp.Header, Raw: string(raw), RequestID: resp.Header.Get("X-Request-Id")}
		var env struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    any    `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(raw, &env) == nil {
			e.Message, e.Type = env.Error.Message, env.Error.Type
			if env.Error.Code != nil {
				e.Code = fmt.Sprint(env.Error.Code)
			}
		}
		return e
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

// apiError is a non-2xx reply: its status, headers (Retry-After,
// x-should-retry), the x-request-id OpenAI's support asks for, and the
// error object OpenAI-compatible servers send, {"error": {"message",
// "type", "code"}}, when there is one.
type apiError struct {
	Status              int
	Header              http.Header
	Type, Code, Message string
	Raw                 string
	RequestID           string
}

func (e *apiError) Error() string {
	s := fmt.Sprintf("status %d %s: %s", e.Status, e.Type, e.Message)
	if e.RequestID != "" {
		s += " (request id " + e.RequestID + ")"
	}
	return s
}

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Messages            []chatMessage `json:"messages"`
	Model               string        `json:"model"`
	MaxCompletionTokens int           `json:"max_completion_tokens,omitempty"`
	MaxTokens           int           `json:"max_tokens,omitempty"` // Config.LegacyMaxTokens only
	Temperature         float64       `json:"temperature"`          // always sent, 0 included
	Stop                []string      `json:"stop,omitempty"`
}

type chatMessage struct {
	Content string `json:"content"`
	Role    string `json:"role"`
}

// chatCompletion is the part of a chat completion swc reads.
type chatCompletion struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content string `json:"content"`
			Refusal string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// embeddingRequest is the body of POST /embeddings.
type embeddingRequest struct {
	Input          []string `json:"input"`
	Model          string   `json:"model"`
	EncodingFormat string   `json:"encoding_format"`
}

// embeddingResponse is the part of an embeddings reply swc reads.
type embeddingResponse struct {
	Data  []embedding `json:"data"`
	Usage struct {
		PromptTokens int64 `json:"prompt_tokens"`
	} `json:"usage"`
}

type embedding struct {
	Index     int64     `json:"index"`
	Embedding []float64 `json:"embedding"`
}
