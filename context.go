package swc

import "context"

// Tier is the priority band a chunk's salience score puts it in.
type Tier string

// The three tiers a chunk can fall in.
const (
	TierHigh Tier = "high" // kept verbatim
	TierMid  Tier = "mid"  // replaced by a gist
	TierLow  Tier = "low"  // discarded
)

// Action is what a strategy finally did with a chunk.
type Action string

// Actions a ChunkReport can record.
const (
	ActionVerbatim Action = "verbatim"
	ActionGist     Action = "gist"
	ActionDropped  Action = "dropped"
	ActionPartial  Action = "partial" // only some turns kept (truncation, budget cuts)
)

// Signals are the three salience signals of a chunk, each in [0, 1].
type Signals struct {
	Downstream float64 `json:"downstream"`
	Recency    float64 `json:"recency"`
	Density    float64 `json:"density"`
}

// ChunkReport says where one session landed and why. Session is the
// session's 0-based index (Session.Index), in JSON too; every output meant
// for people (tables, contexts, pages, reports) numbers sessions from 1.
type ChunkReport struct {
	Session    int      `json:"session"`
	Date       string   `json:"date"`
	Tokens     int      `json:"tokens"`
	Signals    Signals  `json:"signals"`
	Score      float64  `json:"score"`
	Tier       Tier     `json:"tier,omitempty"`
	Pinned     bool     `json:"pinned"`
	Action     Action   `json:"action"`
	GistTokens int      `json:"gist_tokens"`
	KeptTurns  []string `json:"kept_turns,omitempty"` // for partial chunks, the turn ids kept
	Reason     string   `json:"reason,omitempty"`     // why the chunk got its action
	Gist       string   `json:"gist,omitempty"`
}

// Drop records one removal made to meet the budget or by tiering; Session
// is the 0-based index, as in ChunkReport.
type Drop struct {
	Session int    `json:"session"`
	Turns   int    `json:"turns,omitempty"` // turns cut, when only part of a session went
	Reason  string `json:"reason"`
}

// Context is a compressed conversation: the text given to a model and the
// account of how it was made.
type Context struct {
	Strategy string        `json:"strategy"`
	Budget   int           `json:"budget"`
	Tokens   int           `json:"tokens"`
	Chunks   []ChunkReport `json:"chunks"`
	Dropped  []Drop        `json:"dropped"`
	Text     string        `json:"text"`
	// Verbatim lists the ids of turns present in full in Text, as turns
	// (not gists): word for word, except that swc-anchored follows each
	// relative temporal expression with its resolved date in brackets.
	Verbatim []string `json:"verbatim_turns,omitempty"`
	// Gists lists every gist the strategy made for this context, whether
	// or not it survived the budget (the preservation analysis audits them).
	Gists []GistRecord `json:"gists,omitempty"`
	// Schedule names the consolidation schedule (SWC only) and
	// Consolidations the session counts after which consolidation ran.
	Schedule       string `json:"schedule,omitempty"`
	Consolidations []int  `json:"consolidations,omitempty"`
}

// GistRecord is one gist a strategy made: the turns it stands for and its
// text.
type GistRecord struct {
	Variant   GistVariant `json:"variant"`
	Sessions  []int       `json:"sessions"` // session indexes the gist covers
	Turns     []string    `json:"turns"`    // ids of the turns it condenses
	Text      string      `json:"text"`
	InContext bool        `json:"in_context"` // false when the budget dropped it
}

// CompressOptions are the per-call settings of a Strategy.
type CompressOptions struct {
	Budget int // tokens; <= 0 means no budget (only "full" accepts that)
	// Upto, when > 0, compresses only the first Upto sessions (replay).
	Upto int
	// Query, when non-empty, is the question the context will serve:
	// question-aware strategies (see QueryAware) use it, others ignore it.
	Query string
}

// QueryAware is implemented by strategies whose context depends on
// CompressOptions.Query (the benchmark builds their context per question).
type QueryAware interface {
	Strategy
	// QueryAware reports whether Compress uses the query.
	QueryAware() bool
}

// Strategy turns a conversation into a Context within a budget.
type Strategy interface {
	// Name returns the condition name, such as "swc-temporal".
	Name() string
	// Compress returns the context, or an error when a gister or embedder
	// fails or the input is unusable.
	Compress(ctx context.Context, c *Conversation, opts CompressOptions) (*Context, error)
}

// Embedder maps texts to vectors. Implementations may use the whole batch
// (the lexical embedder fits its IDF weights on it), so callers pass all the
// texts of one conversation in one call.
type Embedder interface {
	Name() string
	// Embed returns one vector per text, in order, or an error.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// SparseEmbedder is an Embedder whose vectors are mostly zeros (the
// lexical one): EmbedSparse returns what Embed returns, each vector as its
// non-zero entries in index order, without building the dense forms.
// Strategies use it when the embedder has it.
type SparseEmbedder interface {
	Embedder
	// EmbedSparse returns one vector per text, in order, or an error.
	EmbedSparse(ctx context.Context, texts []string) ([]Sparse, error)
}

// Sparse holds the non-zero entries of a vector, in index order: a
// lexical vector has a few dozen among thousands of dimensions, and a dot
// product over them is that much cheaper than over the dense form. Package
// vector has the maths over it.
type Sparse struct {
	Index []int32
	Value []float32
}

// GistVariant names the gist prompt family.
type GistVariant string

// The gist variants, plus the running summary of the sliding
// window baseline.
const (
	GistFull            GistVariant = "full"
	GistTemporal        GistVariant = "temporal"
	GistSummary         GistVariant = "summary"          // sliding-window running summary
	GistSummaryTemporal GistVariant = "summary-temporal" // sliding-temporal
)

// GistRequest is one chunk to condense.
type GistRequest struct {
	Variant GistVariant
	// Date is the session date text shown to the gister.
	Date string
	// Text is the gister's input: the rendered turns (with anchors already
	// inserted for swc-anchored).
	Text string
}

// Gister condenses a chunk into a gist.
type Gister interface {
	// Name identifies the gister and its model, e.g. "extractive" or
	// "anthropic:claude-haiku-4-5-20251001"; it is part of REM cache keys.
	Name() string
	// Gist returns the gist text, or an error. It returns "" with no
	// error when the chunk holds nothing to condense (blank text, or
	// session headers only); strategies drop such a chunk. A model that
	// replies with nothing, or is cut off, is an error, never "".
	Gist(ctx context.Context, req GistRequest) (string, error)
}
