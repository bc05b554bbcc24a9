// Package sleep is the service's memory of stored conversations (Service):
// it turns a tenant's stored messages into a conversation, consolidates it
// (the job a worker runs while the conversation is idle: the agent's
// "sleep") and assembles its context on the read path from the gists
// already made, without calling any LLM. A Go program compressing its own
// history in-process wants memory.Compressor instead.
package sleep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/embed"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/strategy"
	"github.com/swcmem/swc/tokens"
)

// Service consolidates and assembles contexts of the conversations in
// Store: the memory behind swc serve. It is safe for concurrent use once
// its fields are set. It is a swc.Watcher: told of the changes of its
// conversations, it serves cached contexts without asking the store.
type Service struct {
	Store swc.Store
	// Gister makes gists in consolidation jobs (put the REM cache in front
	// of it); Fallback stands in on the read path for a gist consolidation
	// has not made (an offline gister: the read path never calls an LLM).
	Gister, Fallback swc.Gister
	// Strategy names the one consolidation uses and the read path
	// defaults to: one of the strategies of package strategy marked
	// ForService (default strategy.Default).
	Strategy string
	// Budget is the default token budget (4000).
	Budget int
	// Schedule says when a conversation is due for consolidation: Idle
	// (Window of silence), EveryK (K new sessions) or Reactive (pending
	// sessions over Threshold tokens, default Budget).
	Schedule consolidate.Schedule
	// Now is the clock (time.Now).
	Now func() time.Time
	// Embedder and Config are the SWC engines strategies are built with
	// (nil and zero: the lexical embedder, consolidate's defaults). Rule
	// groups messages into sessions for the openai and anthropic formats,
	// as the store does.
	Embedder swc.Embedder
	Config   consolidate.Config
	Rule     swc.SessionRule
	// CacheBytes bounds the bytes of the cached contexts (default
	// DefaultCacheBytes); one tenant holds at most TenantShare of them
	// (default memo.DefaultTenantShare), so that one tenant reading a large
	// conversation at many budgets pushes out its own contexts, not
	// everyone's. Set both before the first Context.
	CacheBytes  int64
	TenantShare float64

	// ReadLimit is the most messages of a conversation a text context of
	// an SWC strategy is planned over on the read path (default
	// DefaultReadLimit). A longer one is resumed from the plan its last
	// consolidation stored and the most recent sessions the budget can
	// reach, reading only those; a context whose stored plan covers every
	// message is resumed from it at any length (the same context).
	ReadLimit int

	// Recheck bounds how long a cached context is served without asking
	// the store for the conversation's version while the service is told
	// of every change (Watching(true)): the staleness when a notification
	// is lost without its connection failing (default DefaultRecheck).
	Recheck time.Duration

	mu       sync.Mutex
	cache    *memo.Cache[cacheKey, *cached]
	forgot   uint64 // Forget calls so far: a build they overtook is not cached
	watching bool   // see Watching
	epoch    uint64 // Watching(true) calls so far
	// marks counts the changes told of the conversations hashing to each
	// slot (Changed): a cached context is served unasked only while its
	// slot's count is the one it was cached or checked at.
	marks [1 << 14]atomic.Uint64
}

// DefaultCacheBytes is the default of Service.CacheBytes.
const DefaultCacheBytes = 128 << 20

// contextCache returns the cache of contexts, made on first use; m.mu is
// held.
func (m *Service) contextCache() *memo.Cache[cacheKey, *cached] {
	if m.cache == nil {
		n := m.CacheBytes
		if n <= 0 {
			n = DefaultCacheBytes
		}
		m.cache = memo.NewCache[cacheKey, *cached](n, m.TenantShare)
	}
	return m.cache
}

// CacheStats returns the contexts cached, their bytes (as resultBytes
// counts them) and the bytes of the tenant holding the most.
func (m *Service) CacheStats() (entries int, bytes, largestTenant int64) {
	m.mu.Lock()
	c := m.contextCache()
	m.mu.Unlock()
	return c.Stats()
}

// resultBytes is about the memory a cached result holds: its JSON and
// the decoded values beside it (about as many bytes again).
func resultBytes(r *Result) int64 { return int64(2*len(r.JSON()) + 1024) }

var _ swc.Watcher = (*Service)(nil)

// DefaultRecheck is the default of Service.Recheck.
const DefaultRecheck = time.Second

// Changed implements swc.Watcher: the conversation's cached contexts are
// checked against the store before they are served again.
func (m *Service) Changed(tenant, conv string, version int64) {
	m.mark(tenant, conv).Add(1)
}

// Watching implements swc.Watcher. While on, a cached context is served
// without asking the store (checked again after Recheck); while off,
// every read asks the store for the conversation's version. Turning it on
// makes every cached context unchecked: changes before may have gone
// untold.
func (m *Service) Watching(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.watching = on
	if on {
		m.epoch++
	}
}

// mark returns the change count of the conversation's slot.
func (m *Service) mark(tenant, conv string) *atomic.Uint64 {
	return &m.marks[maphash.Comparable(markSeed, convRef{tenant, conv})%uint64(len(m.marks))]
}

type convRef struct{ tenant, conv string }

var markSeed = maphash.MakeSeed()

// Request asks for a context.
type Request struct {
	Budget   int
	Strategy string
	Format   string // text, openai or anthropic
}

// Result is a context of a stored conversation.
type Result struct {
	Strategy string `json:"strategy"`
	Budget   int    `json:"budget"`
	Format   string `json:"format"`
	Tokens   int    `json:"tokens"`
	Text     string `json:"text,omitempty"`
	System   string `json:"system,omitempty"`
	// Messages are []chat.OpenAIMessage or []chat.AnthropicMessage.
	Messages            any               `json:"messages,omitempty"`
	Chunks              []swc.ChunkReport `json:"chunks"`
	ConsolidatedThrough int               `json:"consolidated_through"`
	PendingSessions     int               `json:"pending_sessions"`
	Version             int64             `json:"version"`

	once sync.Once
	json []byte
}

// JSON returns r encoded (once; cached results are shared).
func (r *Result) JSON() []byte {
	r.once.Do(func() {
		b, err := json.Marshal(r)
		if err != nil {
			b = []byte(`{"error":{"code":"internal","message":"encoding the context failed"}}`)
		}
		r.json = append(b, '\n')
	})
	return r.json
}

type cacheKey struct {
	tenant, conv, strategy, format string
	budget                         int
}

type cached struct {
	version int64
	res     *Result
	// When it was last known current: the service's epoch and the
	// conversation's change count then, and the time (unix ns).
	epoch, mark, at atomic.Int64
}

// current reports whether c may be served without asking the store.
func (c *cached) current(epoch uint64, mark uint64, now time.Time, recheck time.Duration) bool {
	return c.epoch.Load() == int64(epoch) && c.mark.Load() == int64(mark) && now.UnixNano()-c.at.Load() < int64(recheck)
}

// checked records that c was current at epoch, mark and now.
func (c *cached) checked(epoch uint64, mark uint64, now time.Time) {
	c.epoch.Store(int64(epoch))
	c.mark.Store(int64(mark))
	c.at.Store(now.UnixNano())
}

func (m *Service) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}

// strategy returns the strategy consolidation uses.
func (m *Service) strategy() string {
	if m.Strategy == "" {
		return strategy.Default
	}
	return m.Strategy
}

// newStrategy builds the named service strategy over the Service's
// engines with gister g, replay schedule sched and plan cache plans
// (nil: none); it returns an EINVALID
// error for a strategy the service does not serve.
func (m *Service) newStrategy(name string, g swc.Gister, sched consolidate.Schedule, plans consolidate.PlanCache) (swc.Strategy, error) {
	if _, err := strategy.Find(name, strategy.ForService); err != nil {
		return nil, err
	}
	e := strategy.Engines{Embedder: m.Embedder, Gister: g, Config: m.Config, Schedule: sched, Plans: plans}
	if e.Embedder == nil {
		e.Embedder = embed.New()
	}
	return strategy.New(name, e)
}

func (m *Service) budget() int {
	if m.Budget <= 0 {
		return 4000
	}
	return m.Budget
}

// Normalize fills a request's defaults and checks it; it returns an
// EINVALID error naming the bad field.
func (m *Service) Normalize(r Request) (Request, error) {
	if r.Budget == 0 {
		r.Budget = m.budget()
	}
	if r.Budget < 1 || r.Budget > 1_000_000 {
		return r, swc.Errorf(swc.EINVALID, "budget must be between 1 and 1000000 (got %d)", r.Budget)
	}
	if r.Strategy == "" {
		r.Strategy = m.strategy()
	}
	if _, err := strategy.Find(r.Strategy, strategy.ForService); err != nil {
		return r, err
	}
	switch r.Format {
	case "":
		r.Format = "text"
	case "text", "openai", "anthropic":
	default:
		return r, swc.Errorf(swc.EINVALID, "unknown format %q (want text, openai or anthropic)", r.Format)
	}
	return r, nil
}

// Context returns the conversation's context: stored messages, the gists
// consolidation made, and the sessions since treated as pending (verbatim
// under the budget rule). It never calls an LLM. Contexts are cached by
// conversation, budget, strategy and format, and invalidated by any append
// or consolidation (the conversation's version, never reused), and a
// context built while Forget ran is not cached. While the service is told
// of every change (Watching), a cached context no change was told of since
// it was last checked, less than Recheck ago, is served without asking the
// store; otherwise the store is asked for the version. It returns
// ENOTFOUND for an unknown conversation and EINVALID for a bad request.
func (m *Service) Context(ctx context.Context, tenant, conv string, r Request) (*Result, error) {
	r, err := m.Normalize(r)
	if err != nil {
		return nil, err
	}
	key := cacheKey{tenant, conv, r.Strategy, r.Format, r.Budget}
	now := m.now()
	m.mu.Lock()
	cache, forgot, watching, epoch := m.contextCache(), m.forgot, m.watching, m.epoch
	m.mu.Unlock()
	c, hit := cache.Get(key)
	mark := m.mark(tenant, conv).Load() // before the store is read
	recheck := m.Recheck
	if recheck <= 0 {
		recheck = DefaultRecheck
	}
	if hit && watching && c.current(epoch, mark, now, recheck) {
		return c.res, nil
	}
	info, err := m.Store.Conversation(ctx, tenant, conv)
	if err != nil {
		return nil, err
	}
	if hit && c.version == info.Version {
		c.checked(epoch, mark, now)
		return c.res, nil
	}
	res, err := m.build(ctx, tenant, conv, r)
	if err != nil {
		return nil, err
	}
	size := resultBytes(res)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.forgot != forgot { // a delete came while it was built: not cached
		return res, nil
	}
	c = &cached{version: res.Version, res: res}
	c.checked(epoch, mark, now)
	cache.Put(tenant, key, c, size)
	return res, nil
}

// Forget drops the cached contexts of a conversation (after a delete);
// a context being built meanwhile is not cached either. (Versions are
// never reused, so no replica serves a cached context of a deleted
// conversation under the id of a new one.)
func (m *Service) Forget(tenant, conv string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.forgot++
	m.contextCache().DeleteFunc(func(k cacheKey, _ *cached) bool { return k.tenant == tenant && k.conv == conv })
}

func (m *Service) build(ctx context.Context, tenant, conv string, r Request) (*Result, error) {
	// Read the version first: a write in between makes the cached entry
	// stale-marked, never fresh-marked with old data.
	info, err := m.Store.Conversation(ctx, tenant, conv)
	if err != nil {
		return nil, err
	}
	if r.Format == "text" {
		if res, ok, err := m.buildResumed(ctx, tenant, conv, info, r); ok || err != nil {
			return res, err
		}
	}
	if r.Format != "text" {
		if res, ok, err := m.buildMessagesBounded(ctx, tenant, conv, info, r); ok || err != nil {
			return res, err
		}
	}
	msgs, err := m.Store.Messages(ctx, tenant, conv)
	if err != nil {
		return nil, err
	}
	gists, err := m.Store.Gists(ctx, tenant, conv)
	if err != nil {
		return nil, err
	}
	c, instr := Conversation(logID, msgs)
	res := &Result{Strategy: r.Strategy, Budget: r.Budget, Format: r.Format, Version: info.Version, Chunks: []swc.ChunkReport{}}
	through := min(info.ConsolidatedThrough, len(c.Sessions))
	res.ConsolidatedThrough = through
	res.PendingSessions = len(c.Sessions) - through
	var sys []string
	sysTokens := 0
	for _, s := range instr {
		sys = append(sys, s.Content)
		sysTokens += tokens.Count(s.Content)
	}
	budget := r.Budget - sysTokens
	if len(c.Sessions) > 0 && budget <= 0 {
		return nil, swc.Errorf(swc.EINVALID, "system messages need %d tokens; budget is %d", sysTokens, r.Budget)
	}
	g := &storedGister{fallback: m.Fallback, gists: map[string]string{}}
	for _, sg := range gists {
		g.gists[string(sg.Variant)+"\x00"+sg.ContentHash] = sg.Text
	}
	sched := consolidate.Schedule{Kind: consolidate.Through, At: through}
	if through == len(c.Sessions) {
		sched = consolidate.Schedule{Kind: consolidate.End} // the same, in one pass
	}
	if r.Format != "text" {
		return m.buildMessages(ctx, res, msgs, g, sched)
	}
	memText := ""
	if len(c.Sessions) > 0 {
		strat, err := m.newStrategy(r.Strategy, g, sched, nil)
		if err != nil {
			return nil, err
		}
		out, err := strat.Compress(ctx, c, swc.CompressOptions{Budget: budget})
		if err != nil {
			return nil, fmt.Errorf("sleep: context: %w", err)
		}
		memText = out.Text
		res.Chunks = out.Chunks
	}
	res.Text = strings.Join(append(sys, memText), "\n\n")
	res.Tokens = tokens.Count(res.Text)
	return res, nil
}

// buildMessages answers format openai or anthropic with the compressor of
// package memory: system messages first, the consolidated
// history as one memory message (anthropic: in system), the most recent
// messages unchanged, within the budget counted as memory counts it. The
// gists are the stored ones, as on the text path.
func (m *Service) buildMessages(ctx context.Context, res *Result, msgs []swc.StoredMessage, g swc.Gister, sched consolidate.Schedule) (*Result, error) {
	comp, err := m.messagesCompressor(res, g, sched)
	if err != nil {
		return nil, err
	}
	plain := make([]swc.Message, len(msgs))
	for i, sm := range msgs {
		plain[i] = sm.Message
	}
	// A call still waiting for its result is left out until it comes (a
	// provider would reject it); so is a call that never got one.
	plain = chat.Answered(plain)
	if len(plain) == 0 {
		res.Messages = []chat.OpenAIMessage{}
		if res.Format == "anthropic" {
			res.Messages = []chat.AnthropicMessage{}
		}
		return res, nil
	}
	out, err := comp.Compress(ctx, plain)
	if err != nil {
		return nil, err
	}
	if out.Context != nil {
		res.Chunks = out.Context.Chunks
	}
	setMessages(res, out, comp)
	return res, nil
}

// messagesCompressor returns the compressor of package memory a context
// of format openai or anthropic is compressed with (gister g, replay
// schedule sched), or an EINVALID error for strategy full.
func (m *Service) messagesCompressor(res *Result, g swc.Gister, sched consolidate.Schedule) (*memory.Compressor, error) {
	if res.Strategy == "full" {
		return nil, swc.Errorf(swc.EINVALID, "strategy full ignores the budget: ask for format=text")
	}
	opts := memory.DefaultOptions()
	opts.Strategy, opts.Budget, opts.Gister, opts.Schedule = res.Strategy, res.Budget, g, sched
	opts.Embedder, opts.Config = m.Embedder, m.Config
	opts.AlignUser = res.Format == "anthropic"
	if m.Rule.Gap > 0 {
		opts.SessionGap = m.Rule.Gap
	}
	if m.Rule.Turns > 0 {
		opts.SessionTurns = m.Rule.Turns
	}
	return memory.New(opts)
}

// setMessages sets res's tokens and messages (and Anthropic's system)
// from the compressor's out (comp made it).
func setMessages(res *Result, out *memory.Result, comp *memory.Compressor) {
	res.Tokens = out.Tokens
	if res.Format == "openai" {
		// The memory where a request holds it: never a system message
		// after another one (strict chat templates refuse that).
		raw, err := chat.OpenAIRequestMessages(out.Messages, slices.Index(out.Source, -1))
		if err != nil {
			res.Messages = chat.OpenAIMessages(out.Messages)
			return
		}
		res.Messages = raw
		if len(raw) != len(out.Messages) { // the memory went into another message
			body, err := json.Marshal(struct {
				Messages []json.RawMessage `json:"messages"`
			}{raw})
			if n, cerr := comp.CountBody(body, chat.OpenAI); err == nil && cerr == nil {
				res.Tokens = n
			}
		}
	} else {
		a := chat.ToAnthropic(out.Messages)
		res.System, res.Messages = a.System, a.Messages
	}
}

// storedGister answers from the gists consolidation stored, and from the
// offline fallback for the rest.
type storedGister struct {
	fallback swc.Gister
	gists    map[string]string
}

func (g *storedGister) Name() string { return "stored" }

func (g *storedGister) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	if t, ok := g.gists[string(req.Variant)+"\x00"+req.ContentHash()]; ok {
		return t, nil
	}
	if g.fallback == nil {
		return "", errors.New("memory: no stored gist and no fallback gister")
	}
	return g.fallback.Gist(ctx, req)
}

// recorder remembers the gists a consolidation made.
type recorder struct {
	g    swc.Gister
	mu   sync.Mutex
	made map[string]swc.StoredGist // by variant, session date and text
}

func (r *recorder) Name() string { return r.g.Name() }

func (r *recorder) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	t, err := r.g.Gist(ctx, req)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	r.made[string(req.Variant)+"\x00"+req.Date+"\x00"+t] = swc.StoredGist{ContentHash: req.ContentHash(), Variant: req.Variant, Gister: r.g.Name(), Text: t}
	r.mu.Unlock()
	return t, nil
}

// Outcome says what a consolidation did.
type Outcome struct {
	Consolidated bool // false when nothing new was there
	Through      int
	Gists        int
}

// Consolidate consolidates every session of the conversation stored now
// with the configured gister, and stores the gists and the new state. A
// conversation with no message since the last consolidation is left alone.
// It returns ENOTFOUND when the conversation is gone (or was deleted and
// re-created while it ran), ECONFLICT when it was edited meanwhile, and the
// gister's error when it fails (nothing is stored then).
func (m *Service) Consolidate(ctx context.Context, tenant, conv string) (Outcome, error) {
	info, err := m.Store.Conversation(ctx, tenant, conv)
	if err != nil {
		return Outcome{}, err
	}
	requested := info.ConsolidationRequested.After(info.ConsolidatedAt)
	if info.Messages == info.ConsolidatedMessages {
		if requested { // settle the request: nothing new to consolidate
			err := m.Store.SaveConsolidation(ctx, tenant, conv, swc.Consolidation{Through: info.ConsolidatedThrough, Messages: info.Messages, At: m.now(),
				Generation: info.Generation, Edits: info.Edits})
			return Outcome{Through: info.ConsolidatedThrough}, err
		}
		return Outcome{Through: info.ConsolidatedThrough}, nil
	}
	msgs, err := m.Store.Messages(ctx, tenant, conv)
	if err != nil {
		return Outcome{}, err
	}
	c, _ := Conversation(logID, msgs)
	n := len(c.Sessions)
	rec := &recorder{g: m.Gister, made: map[string]swc.StoredGist{}}
	var stored []swc.StoredGist
	var plan []byte
	if n > 0 {
		strat, err := m.newStrategy(m.strategy(), rec, consolidate.Schedule{Kind: consolidate.End}, planMap{})
		if err != nil {
			return Outcome{}, err
		}
		out, err := strat.Compress(ctx, c, swc.CompressOptions{Budget: m.budget()})
		if err != nil {
			return Outcome{}, fmt.Errorf("memory: consolidate: %w", err)
		}
		if plan, err = m.planOf(ctx, strat, m.strategy(), c, info, msgs); err != nil {
			return Outcome{}, fmt.Errorf("memory: consolidate: %w", err)
		}
		for _, gr := range out.Gists {
			if len(gr.Sessions) != 1 || gr.Sessions[0] >= n {
				continue
			}
			sg, ok := rec.made[string(gr.Variant)+"\x00"+c.Sessions[gr.Sessions[0]].DateText+"\x00"+gr.Text]
			if !ok {
				continue
			}
			sg.Session = gr.Sessions[0]
			stored = append(stored, sg)
		}
	}
	at := m.now()
	// Saved only into the conversation read: not into one re-created
	// under the same id since (ENOTFOUND), nor over an edit (ECONFLICT: the
	// job runs again on what is stored then).
	err = m.Store.SaveConsolidation(ctx, tenant, conv, swc.Consolidation{Through: n, Messages: len(msgs), Gists: stored, Plan: plan, At: at,
		Generation: info.Generation, Edits: info.Edits})
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Consolidated: true, Through: n, Gists: len(stored)}, nil
}

// Due returns how long until the conversation is due for consolidation
// under the schedule (or at once, when one was requested explicitly): 0
// when due now, and ok=false when it has nothing new to consolidate. It
// returns ENOTFOUND when the conversation is gone.
func (m *Service) Due(ctx context.Context, tenant, conv string) (wait time.Duration, ok bool, err error) {
	info, err := m.Store.Conversation(ctx, tenant, conv)
	if err != nil {
		return 0, false, err
	}
	if info.ConsolidationRequested.After(info.ConsolidatedAt) {
		return 0, true, nil
	}
	if info.Messages == info.ConsolidatedMessages {
		return 0, false, nil
	}
	switch m.Schedule.Kind {
	case consolidate.EveryK:
		k := max(m.Schedule.K, 1)
		return 0, info.Sessions-info.ConsolidatedThrough >= k, nil
	case consolidate.Reactive:
		msgs, err := m.Store.Messages(ctx, tenant, conv)
		if err != nil {
			return 0, false, err
		}
		c, _ := Conversation(logID, msgs)
		pending := 0
		for i := min(info.ConsolidatedThrough, len(c.Sessions)); i < len(c.Sessions); i++ {
			pending += tokens.Session(&c.Sessions[i])
		}
		threshold := m.Schedule.Threshold
		if threshold <= 0 {
			threshold = m.budget()
		}
		return 0, pending > threshold, nil
	default: // idle
		w := m.Schedule.Window
		if w <= 0 {
			w = 10 * time.Minute
		}
		return max(info.LastReceived.Add(w).Sub(m.now()), 0), true, nil
	}
}
