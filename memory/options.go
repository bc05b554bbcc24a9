package memory

import (
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/consolidate"
)

// Defaults of Options.
const (
	// DefaultStrategy is swc-select, not strategy.Default: under Epoch the
	// memory has MemoryShare of the budget, and at that size swc-select's
	// chosen turns keep more of what a conversation's questions ask than
	// SWC's sessions (swc replay, docs/caching.md).
	DefaultStrategy        = "swc-select"
	DefaultBudget          = 4000
	DefaultKeepRecent      = 8
	DefaultFallbackReserve = 100 * time.Millisecond
	DefaultMemoryShare     = 0.4
	DefaultRestartShare    = 0.1
	// A tool loop's observation window (Options.LoopKeep, LoopEvery,
	// StubValue).
	DefaultLoopKeep  = 2
	DefaultLoopEvery = 3
	DefaultStubValue = 0.05
	DefaultStubShare = 1.0 / 3
	// DefaultTurnTokens is Options.TurnTokens' default: an old assistant
	// turn keeps about its first sentence.
	DefaultTurnTokens = 48
)

// Compaction values: how a history over the budget is compressed.
const (
	// Epoch (the default) compresses the history before a boundary into
	// the memory message and sends everything after it verbatim. The
	// boundary moves only when the verbatim tail outgrows the room the
	// memory leaves, and then jumps so that the tail restarts small; it is
	// a function of the history alone, so requests of an agent whose
	// history grows by appends share their instructions and memory byte
	// for byte until the next jump (a provider's prompt cache hits).
	Epoch = "epoch"
	// Replan re-plans the whole history on every call: the memory takes
	// all the room the instructions and the last KeepRecent messages
	// leave, and changes with every new message.
	Replan = "replan"
)

// Cache breakpoint values (Options.CacheBreakpoints).
const (
	// BreakpointsAuto puts an Anthropic cache_control mark on the memory
	// block when the client's marks leave room (at most 4 per request).
	BreakpointsAuto = "auto"
	// BreakpointsOff leaves the client's marks as they came and adds none.
	BreakpointsOff = "off"
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
	// ForCompressor (default DefaultStrategy).
	Strategy string
	// Budget is the most tokens the output messages may hold (default
	// DefaultBudget).
	Budget int
	// Tokenizer is "cl100k_base" (default) or "o200k_base".
	Tokenizer string
	// KeepRecent is how many of the latest conversation messages are kept
	// unchanged: under Replan the last KeepRecent (DefaultOptions:
	// DefaultKeepRecent; 0 keeps none), under Epoch those a new epoch
	// starts with (at least one). The window grows to keep a tool call
	// with its results.
	KeepRecent int
	// AlignUser makes the kept messages start at a user message, as the
	// Anthropic API requires of a request's first message (and keeps at
	// least one message, even with KeepRecent 0).
	AlignUser bool
	// Compaction is Epoch (default) or Replan.
	Compaction string
	// MemoryShare is the share of the budget, after the instructions, the
	// memory message may use under Epoch (default DefaultMemoryShare); the
	// verbatim tail grows into the rest. It is a fixed reservation, so the
	// boundary is found without compressing anything.
	MemoryShare float64
	// RestartShare bounds the tail a new epoch starts with, as a share of
	// the budget after the instructions (default DefaultRestartShare): the
	// last KeepRecent messages (at least one), fewer when they hold more.
	// In a tool loop it is a share of the budget after the instructions
	// and the task: the verbatim observations a jump keeps, the room a
	// drop frees and the memory's lines of dropped calls.
	RestartShare float64
	// LoopKeep, LoopEvery, StubTokens and StubValue shape a tool loop's
	// observation window (see Compress), whatever the budget: the
	// observations of the last LoopKeep exchanges stay verbatim (default
	// DefaultLoopKeep; negative: no window, observations are stubbed only
	// to fit the budget); once LoopKeep+LoopEvery exchanges (default
	// DefaultLoopEvery) hold verbatim observations, the older ones become
	// stubs, so the stubs move in jumps and the requests between two jumps
	// extend each other byte for byte. A stub holds at most StubShare of
	// its output's tokens (default DefaultStubShare; negative: none, every
	// stub StubTokens), at least StubTokens (default
	// observe.DefaultStubTokens) and at most 3 × StubTokens; after its
	// diagnostic and focus lines, only lines worth StubValue per token
	// (default DefaultStubValue; negative: any line).
	LoopKeep   int
	LoopEvery  int
	StubTokens int
	StubShare  float64
	StubValue  float64
	// TurnTokens clips the text of a tool loop's assistant turns older
	// than the verbatim window, at the jumps that stub their exchanges'
	// observations: a turn's prose (its text outside fenced code blocks)
	// keeps its first sentences up to this many tokens (default
	// DefaultTurnTokens; negative: never clipped), then a handle to the
	// whole turn; its fenced code blocks (a text-acting agent's command)
	// stay as they were, and so do its tool calls but for a string value
	// of their arguments over TurnTokens+16 tokens, cut to its leading
	// lines (about TurnTokens/2 tokens) and the handle (Result.Calls:
	// a Write's file, an Edit's strings). At the same jumps an old turn
	// goes without its reasoning (Anthropic's thinking blocks, Gemini's
	// unsigned thought parts), clipped or not (chat.StripReasoning).
	TurnTokens int
	// HistoryHandles makes the memory of a chat history show a handle
	// in the place of each piece it does not hold whole (Result.Recall), so
	// that a recall tool can get it back: the compressing proxy turns it on
	// for the requests it offers swc_recall. Off by default: a handle
	// costs 10–13 tokens of the memory's room, which a context read
	// without a recall tool spends better on what was said.
	HistoryHandles bool
	// HoldBudget holds the budget in a tool loop whose newest outputs
	// alone overflow it (a file read of a megabyte, a few large parallel
	// reads): they are cut to the lines worth most and their handle
	// (water-filling, see cutNewest) until the request fits, instead of
	// going out whole over the budget (Result.OverBudget). Off by default:
	// the next step uses the newest output most (about 60% of what a
	// coding agent's next turn names from outputs is in it), so sending
	// it whole is worth the overshoot unless the budget is the model's
	// own limit — a local model's context window, a provider's — where an
	// overshoot is a failed request. For the same reason the middleware
	// (and the proxy, swc compress) then take a request's tool definitions
	// off the budget (ToolTokens, Held): the messages get what they leave.
	HoldBudget bool
	// CacheBreakpoints is BreakpointsAuto (default) or BreakpointsOff: the
	// Anthropic middleware's cache_control mark on the memory block.
	CacheBreakpoints string
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
	// MemoBytes bounds the bytes the Compressor's memos (anchors, entity
	// counts, gists, plans) hold together, shared by its WithBudget and
	// WithAlignUser copies (default DefaultMemoBytes).
	MemoBytes int
}

// DefaultOptions returns swc-select at 4,000 cl100k_base tokens in epochs
// (memory 40% of the budget, a new epoch keeping the last 8 messages, at
// most 10% of the budget), sessions after 30 minutes of silence, offline
// engines.
func DefaultOptions() Options {
	return Options{
		Strategy: DefaultStrategy, Budget: DefaultBudget, Tokenizer: "cl100k_base",
		Compaction: Epoch, MemoryShare: DefaultMemoryShare, RestartShare: DefaultRestartShare, CacheBreakpoints: BreakpointsAuto,
		KeepRecent: DefaultKeepRecent, SessionGap: chat.DefaultSessionGap, SessionTurns: chat.DefaultSessionTurns,
		Config: consolidate.DefaultConfig(), FallbackReserve: DefaultFallbackReserve,
	}
}
