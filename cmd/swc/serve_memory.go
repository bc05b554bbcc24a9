package main

import (
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"

	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/sleep"
)

// defaultMemoryLimit is --memory-limit's default.
const defaultMemoryLimit = 1 << 30

// memoryPlan is how swc serve divides its memory budget (--memory-limit)
// among its caches and memos, in bytes each holds at most. 17/64 of the
// limit goes to them (the rendered memories are two caches); the rest is left to the requests in flight and
// to the garbage collector's headroom (GOMEMLIMIT is the limit).
type memoryPlan struct {
	limit int64
	// contexts: sleep.Service's cached contexts; prefixes: the proxy's
	// rendered memories of stored conversations; originals: the originals
	// of the tool outputs the proxy stubbed or dropped (swc_recall's);
	// items: the output items of the Responses answers it relayed (read
	// for item_reference). All per tenant: one tenant holds at most
	// memo.DefaultTenantShare of each.
	contexts, prefixes, originals, items int64
	// compressors: the proxy's memos (anchors, entity counts, gists,
	// plans), all budgets together; shared: the process's memos keyed by
	// text (token counts, index terms, mention tokens, sentence scores);
	// engines: the consolidation engines' memos (gists, entity counts,
	// anchors, embeddings).
	compressors, shared, engines int64
	// states: on Postgres, the append states of conversations, a
	// generation of them (the memo holds two).
	states int64
}

// planMemory divides limit: 2/64 to the contexts, 1/64 to the append
// states (two generations of 1/128), 1/64 to the rendered memories, 1/64
// to the originals swc_recall answers with, 1/64 to the Responses output
// items, 1/16
// to the proxy's compressors, 1/16 to the shared memos and 1/32 to the
// engines.
func planMemory(limit int64) memoryPlan {
	return memoryPlan{limit: limit, contexts: limit / 32, prefixes: limit / 64, originals: limit / 64, items: limit / 64,
		compressors: limit / 16, shared: limit / 16, engines: limit / 32, states: limit / 128}
}

// apply sets GOMEMLIMIT to the limit and sizes the shared memos: both are
// the process's, so swc serve (and loadtest-soak) apply them, not
// openService; the other parts are sized where they are made (service,
// server, engines).
func (p memoryPlan) apply() {
	debug.SetMemoryLimit(p.limit)
	memo.SetSharedBudget(int(p.shared))
}

// engineMemoBytes is engineFlags.memoBytes for the engines' part: they
// hold two generations of three text memos and of the embeddings (four
// times a text memo's bytes).
func (p memoryPlan) engineMemoBytes() int { return max(int(p.engines/14), 1) }

func (p memoryPlan) service(m *sleep.Service) { m.CacheBytes = p.contexts }

func (p memoryPlan) proxy(c *swchttp.ProxyConfig) {
	c.MemoBytes, c.PrefixBytes, c.RecallBytes, c.ItemBytes = int(p.compressors), p.prefixes, p.originals, p.items
}

// parseBytes reads a size: a number of bytes with an optional unit (KiB,
// MiB, GiB, TiB; KB, MB, GB, TB are decimal; k, M, G, T read as binary).
// It returns an error naming the input when it is not one or not positive.
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), strings.TrimSpace(t[i:])
	mult := map[string]float64{"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "kb": 1e3, "m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9, "t": 1 << 40, "tib": 1 << 40, "tb": 1e12}[strings.ToLower(unit)]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || v*mult < 1 || v*mult > 1<<62 {
		return 0, fmt.Errorf("want a positive size such as 1GiB, 512MiB or 268435456 (got %q)", s)
	}
	return int64(v * mult), nil
}

// byteSize is a flag.Value of bytes, read by parseBytes.
type byteSize int64

func (b *byteSize) String() string { return formatBytes(int64(*b)) }

func (b *byteSize) Set(s string) error {
	n, err := parseBytes(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

// formatBytes writes n in the largest binary unit that divides it.
func formatBytes(n int64) string {
	for _, u := range []struct {
		name string
		v    int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.v && n%u.v == 0 {
			return strconv.FormatInt(n/u.v, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}
