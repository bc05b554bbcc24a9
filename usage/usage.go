// Package usage meters LLM calls: token counts and estimated cost per role
// and per model (Meter, Metered), priced by a PriceTable (DefaultPrices).
// The token-count type itself, swc.Usage, is root vocabulary.
package usage

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/swcmem/swc"
)

// Price is a model's list price in USD per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// PriceTable maps model-name prefixes to list prices; Of picks the
// longest prefix, so "gpt-4o-mini-2024-07-18" gets gpt-4o-mini's. Models
// not listed (local ones included) have no cost. It is configuration: a
// Meter takes one (Meter.Prices), nothing global is changed.
type PriceTable map[string]Price

// DefaultPrices returns a new table of list prices (USD per million
// input/output tokens, standard tier, no batch or cache discounts).
func DefaultPrices() PriceTable {
	return PriceTable{
		"claude-haiku-4-5":       {Input: 1, Output: 5},
		"claude-sonnet-4-6":      {Input: 3, Output: 15},
		"gpt-4o-mini":            {Input: 0.15, Output: 0.60},
		"gpt-4o":                 {Input: 2.50, Output: 10},
		"text-embedding-3-small": {Input: 0.02},
		"text-embedding-3-large": {Input: 0.13},
	}
}

// Of returns the price of model, given bare or as "provider:model", and
// false when the table has no prefix of it.
func (t PriceTable) Of(model string) (Price, bool) {
	if _, m, ok := strings.Cut(model, ":"); ok {
		model = m
	}
	best, found := "", false
	for prefix := range t {
		if strings.HasPrefix(model, prefix) && len(prefix) > len(best) {
			best, found = prefix, true
		}
	}
	return t[best], found
}

// PriceOf returns the price of model in DefaultPrices, and false when it
// has none.
func PriceOf(model string) (Price, bool) { return DefaultPrices().Of(model) }

// defaultPrices is the table a Meter without Prices reads (never changed).
var defaultPrices = DefaultPrices()

// Cost returns the USD cost of u at price p.
func (p Price) Cost(u swc.Usage) float64 {
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output) / 1e6
}

// Line is the usage of one role, one model or everything.
type Line struct {
	Key string `json:"key"`
	swc.Usage
	// Errors counts calls that failed.
	Errors int `json:"errors,omitempty"`
	// CostUSD is the estimated cost of the priced calls; nil when no call
	// had a known price.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// Unpriced counts calls whose model has no price; CostUSD leaves
	// them out.
	Unpriced int `json:"unpriced,omitempty"`
}

func (l *Line) add(u swc.Usage, cost float64, priced bool, failed bool) {
	l.Usage = l.Usage.Add(u)
	if failed {
		l.Errors++
	}
	switch {
	case priced:
		c := cost
		if l.CostUSD != nil {
			c += *l.CostUSD
		}
		l.CostUSD = &c
	case u.Calls > 0:
		l.Unpriced += u.Calls
	}
}

// Summary is a Meter's totals, by role and by model (sorted by key).
type Summary struct {
	Total   Line   `json:"total"`
	ByRole  []Line `json:"by_role"`
	ByModel []Line `json:"by_model"`
}

// Meter accumulates token usage and estimated cost per role (the
// swc.LLMRequest.Purpose: "gist", "qa", "judge", "embed"; "" is recorded as
// "other") and per model. It is safe for concurrent use; the zero value is
// ready.
type Meter struct {
	// Prices prices the calls (nil: DefaultPrices). Set it before the
	// first Record.
	Prices PriceTable

	mu    sync.Mutex
	total Line
	role  map[string]*Line
	model map[string]*Line
}

// Record adds one call's usage. A cached response counts as one cache hit
// with no tokens, calls or cost, whatever its stored usage says.
func (m *Meter) Record(role, model string, u swc.Usage, cached bool) {
	m.record(role, model, u, cached, false)
}

// RecordError counts one failed call.
func (m *Meter) RecordError(role, model string) {
	m.record(role, model, swc.Usage{}, false, true)
}

func (m *Meter) record(role, model string, u swc.Usage, cached, failed bool) {
	if role == "" {
		role = "other"
	}
	if cached {
		u = swc.Usage{CacheHits: 1}
	}
	prices := m.Prices
	if prices == nil {
		prices = defaultPrices
	}
	p, priced := prices.Of(model)
	priced = priced && !cached && !failed
	cost := p.Cost(u)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.role == nil {
		m.role, m.model = map[string]*Line{}, map[string]*Line{}
	}
	for _, l := range []*Line{&m.total, line(m.role, role), line(m.model, model)} {
		l.add(u, cost, priced, failed)
	}
}

func line(lines map[string]*Line, key string) *Line {
	l, ok := lines[key]
	if !ok {
		l = &Line{Key: key}
		lines[key] = l
	}
	return l
}

// Summary returns a snapshot of the totals.
func (m *Meter) Summary() Summary {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Summary{Total: snapshot(&m.total), ByRole: lines(m.role), ByModel: lines(m.model)}
	s.Total.Key = "total"
	return s
}

func snapshot(l *Line) Line {
	c := *l
	if l.CostUSD != nil {
		v := *l.CostUSD
		c.CostUSD = &v
	}
	return c
}

func lines(m map[string]*Line) []Line {
	out := make([]Line, 0, len(m))
	for _, l := range m {
		out = append(out, snapshot(l))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// String renders the summary as a plain-text table.
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-40s %7s %6s %6s %11s %11s %10s\n", "", "calls", "cached", "errors", "input tok", "output tok", "cost USD")
	row := func(l Line) {
		cost := "-"
		if l.CostUSD != nil {
			cost = fmt.Sprintf("%.4f", *l.CostUSD)
			if l.Unpriced > 0 {
				cost = "≥" + cost
			}
		}
		fmt.Fprintf(&b, "%-40s %7d %6d %6d %11d %11d %10s\n", l.Key, l.Calls, l.CacheHits, l.Errors, l.InputTokens, l.OutputTokens, cost)
	}
	for i, group := range [][]Line{s.ByRole, s.ByModel} {
		fmt.Fprintf(&b, "%s\n", []string{"by role:", "by model:"}[i])
		for _, l := range group {
			l.Key = "  " + l.Key
			row(l)
		}
	}
	row(s.Total)
	return b.String()
}

// Metered returns l recording each call in m under the request's Purpose
// and l.Name().
func Metered(l swc.LLM, m *Meter) swc.LLM { return &meteredLLM{l: l, m: m} }

type meteredLLM struct {
	l swc.LLM
	m *Meter
}

func (ml *meteredLLM) Name() string { return ml.l.Name() }

// Complete returns the wrapped LLM's reply or error unchanged.
func (ml *meteredLLM) Complete(ctx context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
	resp, err := ml.l.Complete(ctx, req)
	if err != nil {
		ml.m.RecordError(req.Purpose, ml.l.Name())
		return resp, err
	}
	u := resp.Usage
	if !resp.Cached {
		u.Calls = max(u.Calls, 1)
	}
	ml.m.Record(req.Purpose, ml.l.Name(), u, resp.Cached)
	return resp, nil
}
