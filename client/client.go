// Package client is a Go client of the swc service API.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/swcmem/swc"
)

// Client calls one swc server with one key.
type Client struct {
	// BaseURL is the server's address, such as http://127.0.0.1:8080.
	BaseURL string
	// Key is the API key sent as a Bearer token.
	Key string
	// HTTPClient makes the requests (http.DefaultClient when nil).
	HTTPClient *http.Client
}

// New returns a client of the server at baseURL using key.
func New(baseURL, key string) *Client { return &Client{BaseURL: baseURL, Key: key} }

// Error is an error answer of the server.
type Error struct {
	Status     int
	Code       string
	Message    string
	RetryAfter time.Duration // for 429
}

func (e *Error) Error() string {
	return fmt.Sprintf("swc server: %d %s: %s", e.Status, e.Code, e.Message)
}

// AppendResult is the answer to an append.
type AppendResult = swc.AppendResult

// Context is the answer to a context request.
type Context struct {
	Strategy string `json:"strategy"`
	Budget   int    `json:"budget"`
	Format   string `json:"format"`
	Tokens   int    `json:"tokens"`
	Text     string `json:"text,omitempty"`
	System   string `json:"system,omitempty"`
	// Messages are Chat Completions messages (format openai) or Anthropic
	// messages (format anthropic) in their wire form.
	Messages            json.RawMessage   `json:"messages,omitempty"`
	Chunks              []swc.ChunkReport `json:"chunks"`
	ConsolidatedThrough int               `json:"consolidated_through"`
	PendingSessions     int               `json:"pending_sessions"`
	Version             int64             `json:"version"`
}

// Conversation is the answer to a conversation request.
type Conversation struct {
	swc.ConversationInfo
	SessionList []struct {
		Index    int       `json:"index"`
		Start    time.Time `json:"start"`
		Date     string    `json:"date"`
		Messages int       `json:"messages"`
	} `json:"session_list"`
	MessageList []swc.StoredMessage `json:"message_list"`
	Gists       []swc.StoredGist    `json:"gists"`
	PendingJobs []swc.Job           `json:"pending_jobs"`
}

// ContextOptions select a context; zero values take the server's defaults.
type ContextOptions struct {
	Budget   int
	Strategy string
	Format   string // text, openai, anthropic
}

func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("client: encode: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("client: %s %s: read: %w", method, path, err)
	}
	if resp.StatusCode >= 400 {
		e := &Error{Status: resp.StatusCode}
		var eb struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if json.Unmarshal(data, &eb) == nil && eb.Error.Code != "" {
			e.Code, e.Message = eb.Error.Code, eb.Error.Message
		} else {
			e.Code, e.Message = http.StatusText(resp.StatusCode), string(data)
		}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			e.RetryAfter = time.Duration(s) * time.Second
		}
		return e
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("client: %s %s: decode: %w", method, path, err)
		}
	}
	return nil
}

func convPath(id string) string { return "/v1/conversations/" + url.PathEscape(id) }

// Append appends messages to the conversation; messages whose ID the
// server already has are skipped, so a retry is safe.
func (c *Client) Append(ctx context.Context, conv string, msgs []swc.Message) (AppendResult, error) {
	var res AppendResult
	err := c.do(ctx, http.MethodPost, convPath(conv)+"/messages", map[string]any{"messages": msgs}, &res)
	return res, err
}

// Context returns the conversation's context.
func (c *Client) Context(ctx context.Context, conv string, opts ContextOptions) (*Context, error) {
	q := url.Values{}
	if opts.Budget != 0 {
		q.Set("budget", strconv.Itoa(opts.Budget))
	}
	if opts.Strategy != "" {
		q.Set("strategy", opts.Strategy)
	}
	if opts.Format != "" {
		q.Set("format", opts.Format)
	}
	path := convPath(conv) + "/context"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out Context
	if err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Conversations lists the tenant's conversations.
func (c *Client) Conversations(ctx context.Context) ([]swc.ConversationInfo, error) {
	var out struct {
		Conversations []swc.ConversationInfo `json:"conversations"`
	}
	err := c.do(ctx, http.MethodGet, "/v1/conversations", nil, &out)
	return out.Conversations, err
}

// Conversation returns one conversation with its sessions, messages,
// gists and pending jobs.
func (c *Client) Conversation(ctx context.Context, conv string) (*Conversation, error) {
	var out Conversation
	if err := c.do(ctx, http.MethodGet, convPath(conv), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete deletes the conversation.
func (c *Client) Delete(ctx context.Context, conv string) error {
	return c.do(ctx, http.MethodDelete, convPath(conv), nil, nil)
}

// Consolidate enqueues a consolidation now and returns the job id.
func (c *Client) Consolidate(ctx context.Context, conv string) (int64, error) {
	var out struct {
		Job int64 `json:"job"`
	}
	err := c.do(ctx, http.MethodPost, convPath(conv)+"/consolidate", nil, &out)
	return out.Job, err
}

// Health returns nil when /healthz answers 200.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/healthz", nil, nil)
}

// Key is one of the tenant's keys as GET /v1/keys lists it.
type Key struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Revoked time.Time `json:"revoked,omitzero"`
}

// Keys lists the tenant's keys, revoked ones included.
func (c *Client) Keys(ctx context.Context) ([]Key, error) {
	var out struct {
		Keys []Key `json:"keys"`
	}
	err := c.do(ctx, http.MethodGet, "/v1/keys", nil, &out)
	return out.Keys, err
}

// RevokeKey revokes the tenant's key id (the client's own included): the
// server it asks refuses the key at once, other replicas within their key
// cache's time to live (2s by default).
func (c *Client) RevokeKey(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/v1/keys/"+url.PathEscape(id), nil, nil)
}
