package trajectory

import "fmt"

// A Row is one request compressed under one condition at one budget: a
// line of results.jsonl.
type Row struct {
	Trajectory string `json:"trajectory"`
	Format     string `json:"format"`
	Budget     int    `json:"budget"`
	Condition  string `json:"condition"`
	Request    int    `json:"request"`  // the request's position in its run, from 0
	Messages   int    `json:"messages"` // the list items the request holds
	// RawTokens and SentTokens are the messages' tokens (cl100k_base,
	// MessageOverhead a message) uncompressed and as sent; SentTokens is 0
	// for a refusal.
	RawTokens  int  `json:"raw_tokens"`
	SentTokens int  `json:"sent_tokens"`
	OverBudget bool `json:"over_budget,omitempty"`
	// Targets are the next turn's identifiers the request held only in
	// observations (Request.Targets); Retained how many of them the sent
	// body's text holds; Lost the others.
	Targets  int      `json:"targets"`
	Retained int      `json:"retained"`
	Lost     []string `json:"lost,omitempty"`
	// OwnTargets are the next turn's identifiers the request's earlier
	// assistant turns held (Request.OwnTargets); OwnRetained how many of
	// them the sent body's text holds.
	OwnTargets  int `json:"own_targets,omitempty"`
	OwnRetained int `json:"own_retained,omitempty"`
	// Recoverable counts the targets in the sent text or returned by one
	// swc_recall call on a handle it shows (see recover.go); Unrecoverable
	// are the others, each with why.
	Recoverable   int    `json:"recoverable"`
	Unrecoverable []Miss `json:"unrecoverable,omitempty"`
	// Refused is the compressor's error ("" when it compressed).
	Refused string `json:"refused,omitempty"`
	// Breaches are the sent body's provider-rule breaches that the
	// condition made: a breach of a rule the request as the agent sent
	// it already breaks (the same rule, wherever in the body) is the
	// input's, and InputBreaches lists the input's breaches (see
	// ownBreaches).
	Breaches      []string `json:"breaches,omitempty"`
	InputBreaches []string `json:"input_breaches,omitempty"`
	// Stable says whether the previous request's sent list is a prefix of
	// this one's (see PrefixStable); absent for a run's first request and
	// when either request was refused.
	Stable *bool `json:"stable,omitempty"`
	// CachedBytes of ListBytes (the sent message list's bytes) are the
	// leading list items the previous request sent byte for byte: what a
	// provider's prompt cache can serve (0 for a run's first request).
	CachedBytes int `json:"cached_bytes,omitempty"`
	ListBytes   int `json:"list_bytes,omitempty"`
	// MarkCachedBytes (Anthropic form only) are the list bytes Anthropic's
	// cache serves by its rules: only up to a mark an earlier request
	// wrote, found from this request's marks (the client's on its last
	// message, and the condition's), at most markLookback blocks back
	// (markCache).
	MarkCachedBytes int `json:"mark_cached_bytes,omitempty"`
	// Cost is what the sent request costs with prompt caching, in
	// uncached input tokens (cost.go: its format's price rule, the cached
	// share of CachedBytes, or MarkCachedBytes in Anthropic form, of
	// ListBytes); RawCost the same for the request as the agent sent it,
	// after the agent's previous request. 0 for a refusal.
	Cost    float64 `json:"cost,omitempty"`
	RawCost float64 `json:"raw_cost,omitempty"`
	// WallMS and CPUMS are the compression's wall-clock and process CPU
	// time.
	WallMS float64 `json:"wall_ms"`
	CPUMS  float64 `json:"cpu_ms"`

	text string // the sent body's text, while the row is made
	body []byte // the sent body, while the row is made
}

// Key identifies a row for resuming.
type Key struct {
	Trajectory, Format, Condition string
	Budget, Request               int
}

// Key returns the row's key.
func (r Row) Key() Key {
	return Key{Trajectory: r.Trajectory, Format: r.Format, Condition: r.Condition, Budget: r.Budget, Request: r.Request}
}

func (k Key) String() string {
	return fmt.Sprintf("%s %s %s@%d #%d", k.Trajectory, k.Format, k.Condition, k.Budget, k.Request)
}

// FRR is the row's forward-reference retention, ok=false when the request
// had no target or was refused.
func (r Row) FRR() (float64, bool) {
	if r.Targets == 0 || r.Refused != "" {
		return 0, false
	}
	return float64(r.Retained) / float64(r.Targets), true
}

// ORR is the row's own-reference retention (OwnRetained/OwnTargets),
// ok=false when the request had no own target or was refused.
func (r Row) ORR() (float64, bool) {
	if r.OwnTargets == 0 || r.Refused != "" {
		return 0, false
	}
	return float64(r.OwnRetained) / float64(r.OwnTargets), true
}

// RecoverableFRR is the row's recoverable forward-reference retention:
// Recoverable over Targets, ok=false as for FRR.
func (r Row) RecoverableFRR() (float64, bool) {
	if r.Targets == 0 || r.Refused != "" {
		return 0, false
	}
	return float64(r.Recoverable) / float64(r.Targets), true
}
