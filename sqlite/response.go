package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/swcmem/swc"
)

// ResponseKey identifies one response cache entry: the provider, the model
// and the full request with its parameters.
type ResponseKey struct {
	Provider string
	Model    string
	// Request is the canonical JSON of the swc.LLMRequest (see
	// NewResponseKey); the entry is keyed by its Hash.
	Request string
}

// NewResponseKey returns the key of req sent to the LLM named llmName
// ("provider:model"; a name without a colon is all provider). The request is
// its JSON encoding: system, messages, temperature, max_tokens, stop, and any
// field added to swc.LLMRequest later; Purpose is excluded, so a "qa" and a
// "judge" call with identical requests share an entry. A nil and an empty
// message list encode alike. It returns an error only when req cannot be
// encoded.
func NewResponseKey(llmName string, req swc.LLMRequest) (ResponseKey, error) {
	provider, model, _ := strings.Cut(llmName, ":")
	if req.Messages == nil {
		req.Messages = []swc.Message{}
	}
	b, err := json.Marshal(req)
	if err != nil {
		return ResponseKey{}, fmt.Errorf("sqlite: encode request: %w", err)
	}
	return ResponseKey{Provider: provider, Model: model, Request: string(b)}, nil
}

// Response is one stored LLM response with what the original call cost.
type Response struct {
	Text         string
	Model        string // the model the provider reported
	StopReason   string
	InputTokens  int
	OutputTokens int
	Latency      time.Duration // stored in whole milliseconds
	CreatedAt    time.Time     // stored in milliseconds
}

// Response returns the stored response for key and ok=true, or ok=false when
// there is none. It returns an error only when the database cannot be read.
func (db *DB) Response(ctx context.Context, key ResponseKey) (r Response, ok bool, err error) {
	var latency, created int64
	err = db.db.QueryRowContext(ctx,
		`SELECT text, resp_model, stop_reason, input_tokens, output_tokens, latency_ms, created_at
		 FROM responses WHERE provider = ? AND model = ? AND request_hash = ?`,
		key.Provider, key.Model, Hash(key.Request)).
		Scan(&r.Text, &r.Model, &r.StopReason, &r.InputTokens, &r.OutputTokens, &latency, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Response{}, false, nil
	}
	if err != nil {
		return Response{}, false, fmt.Errorf("sqlite: get response: %w", err)
	}
	r.Latency = time.Duration(latency) * time.Millisecond
	r.CreatedAt = time.UnixMilli(created)
	return r, true, nil
}

// PutResponse stores r under key; a zero CreatedAt is replaced by db.Now().
// When the key is already stored the stored entry is kept and PutResponse
// succeeds. It returns an error when the database cannot be written.
func (db *DB) PutResponse(ctx context.Context, key ResponseKey, r Response) error {
	return db.putResponse(ctx, key, r, "IGNORE")
}

// putResponse stores r under key; on a stored key, conflict "IGNORE" keeps
// the stored entry and "REPLACE" overwrites it.
func (db *DB) putResponse(ctx context.Context, key ResponseKey, r Response, conflict string) error {
	if r.CreatedAt.IsZero() {
		r.CreatedAt = db.now()
	}
	_, err := db.db.ExecContext(ctx,
		`INSERT OR `+conflict+` INTO responses (provider, model, request_hash, request, text, resp_model,
		 stop_reason, input_tokens, output_tokens, latency_ms, created_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		key.Provider, key.Model, Hash(key.Request), key.Request, r.Text, r.Model,
		r.StopReason, r.InputTokens, r.OutputTokens, r.Latency.Milliseconds(), r.CreatedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("sqlite: put response: %w", err)
	}
	return nil
}

// cachedLLM is the response cache in front of an LLM.
type cachedLLM struct {
	l  swc.LLM
	db *DB
}

var _ swc.LLM = (*cachedLLM)(nil)

// CachedLLM returns an LLM that answers repeated requests from the response
// cache in db and calls l only on a miss. Only successful responses that
// the request's Check accepts are stored; errors are returned and never
// cached, and a stored reply Check rejects counts as a miss (the new reply
// replaces it when accepted). When l is an swc.WireKeyer, the key also
// holds its WireKey (what is actually sent: an API version, a temperature
// or none). Name is l's name. Hits and misses are counted in db.Stats.
func CachedLLM(l swc.LLM, db *DB) swc.LLM { return &cachedLLM{l: l, db: db} }

func (c *cachedLLM) Name() string { return c.l.Name() }

// Complete returns the stored response on a hit, with Cached=true and a
// Usage of {CacheHits: 1} (no tokens, no calls: the hit costs nothing; the
// original usage stays in the entry, see DB.Response). On a miss it returns
// l's response unchanged after storing it with its latency. It returns l's
// error unchanged, or an error when the cache cannot be read or written.
func (c *cachedLLM) Complete(ctx context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
	key, err := NewResponseKey(c.l.Name(), req)
	if err != nil {
		return swc.LLMResponse{}, err
	}
	if wk, ok := c.l.(swc.WireKeyer); ok { // key on the request as sent
		key.Request += "\nwire: " + wk.WireKey(req)
	}
	r, ok, err := c.db.Response(ctx, key)
	if err != nil {
		return swc.LLMResponse{}, err
	}
	conflict := "IGNORE"
	if ok {
		hit := swc.LLMResponse{
			Text:       r.Text,
			Model:      r.Model,
			StopReason: r.StopReason,
			Usage:      swc.Usage{CacheHits: 1},
			Cached:     true,
		}
		if req.Check == nil || req.Check(hit) == nil {
			c.db.respHits.Add(1)
			return hit, nil
		}
		conflict = "REPLACE" // a reply rejected since it was stored: ask again
	}
	c.db.respMisses.Add(1)
	start := c.db.now()
	resp, err := c.l.Complete(ctx, req)
	if err != nil {
		return swc.LLMResponse{}, err
	}
	if req.Check != nil && req.Check(resp) != nil {
		return resp, nil // the caller rejects it; a rerun asks again
	}
	end := c.db.now()
	err = c.db.putResponse(ctx, key, Response{
		Text:         resp.Text,
		Model:        resp.Model,
		StopReason:   resp.StopReason,
		InputTokens:  resp.Usage.InputTokens,
		OutputTokens: resp.Usage.OutputTokens,
		Latency:      end.Sub(start),
		CreatedAt:    end,
	}, conflict)
	if err != nil {
		return swc.LLMResponse{}, err
	}
	return resp, nil
}
