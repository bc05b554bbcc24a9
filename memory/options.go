package memory

import (
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/strategy"
)

// Defaults of Options.
const (
	DefaultStrategy        = strategy.Default
	DefaultBudget          = 4000
	DefaultKeepRecent      = 8
	DefaultFallbackReserve = 100 * time.Millisecond
)

// MessageOverhead is the fixed token cost counted for every output message
// on top of its content (role, separators; OpenAI documents about 3–4 per
// message). A message's tokens are its content's, plus each tool call's
// name and arguments, plus MessageOverhead.
const MessageOverhead = 4

// Preamble opens the memory message, before the consolidated history.
const Preamble = "Earlier conversation, consolidated (session dates in headers; summaries and omissions are marked):\n\n"

// Options configure a Compressor. Start from DefaultOptions: New fills the
// zero value of every field except KeepRecent with its default.
type Options struct {
	// Strategy is one of the strategies of package strategy marked
	// ForCompressor (default DefaultStrategy, strategy.Default).
	Strategy string
	// Budget is the most tokens the output messages may hold (default
	// DefaultBudget).
	Budget int
	// Tokenizer is "cl100k_base" (default) or "o200k_base".
	Tokenizer string
	// KeepRecent is how many of the latest conversation messages are kept
	// unchanged (DefaultOptions: DefaultKeepRecent; 0 keeps none). The
	// window grows to keep a tool call with its results.
	KeepRecent int
	// AlignUser makes the kept messages start at a user message, as the
	// Anthropic API requires of a request's first message (and keeps at
	// least one message, even with KeepRecent 0).
	AlignUser bool
	// SessionGap and SessionTurns drive chat.Sessionize (defaults 30m, 20).
	SessionGap   time.Duration
	SessionTurns int

	// Gister condenses mid-salience sessions (default: the offline
	// extractive gister). LLM, when set and Gister is nil, selects the
	// paper's LLM gister over it, behind the REM cache Cache when Cache is
	// set (a *sqlite.DB or *postgres.DB: a gist is made once, across runs
	// and processes).
	Gister swc.Gister
	LLM    swc.LLM
	Cache  swc.GistCache
	// Embedder computes downstream similarity (default: the offline lexical
	// embedder).
	Embedder swc.Embedder
	// Config tunes SWC (zero: consolidate.DefaultConfig).
	Config consolidate.Config
	// Schedule replays consolidation session by session (SWC only; zero:
	// consolidate once, at the end).
	Schedule consolidate.Schedule
	// FallbackReserve is the time kept before ctx's deadline for the offline
	// fallback when the engines call an LLM (default DefaultFallbackReserve).
	FallbackReserve time.Duration
}

// DefaultOptions returns swc-anchored at 4,000 cl100k_base tokens, the last
// 8 messages kept, sessions after 30 minutes of silence, offline engines.
func DefaultOptions() Options {
	return Options{
		Strategy: DefaultStrategy, Budget: DefaultBudget, Tokenizer: "cl100k_base",
		KeepRecent: DefaultKeepRecent, SessionGap: chat.DefaultSessionGap, SessionTurns: chat.DefaultSessionTurns,
		Config: consolidate.DefaultConfig(), FallbackReserve: DefaultFallbackReserve,
	}
}
