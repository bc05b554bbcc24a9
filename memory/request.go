package memory

import (
	"bytes"
	"context"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// SpliceRequest returns the request body in (a Chat Completions,
// Messages, Responses or Gemini request parsed by chat.Parse) with its
// messages replaced by res's: kept messages byte for byte as they came
// and the memory (res.Memory) where the format's codec writes it — a tool
// loop's after its task, in the task's message (openai, anthropic,
// gemini); else at the end of the client's leading system or developer
// message, and when there is none at the start of the first kept message
// if it is a user's, else as a user message of its own, the first: swc
// adds no system message (openai);
// appended to "system" (anthropic, as a text block with a cache_control
// mark when the body's marks leave room for one: see SpliceOptions); at
// the end of the leading system or developer message item, else at the
// start of the first kept item when it is a user's message, else a user
// message item of its own (responses, whose "instructions" field stays as
// it was; no developer item added); a text part of
// "systemInstruction" (gemini). Every other field of the body is kept as
// it came (for responses, every byte outside "input"). res may come from
// Compress or be assembled by the caller (Source -1 marks the memory
// message). It returns an EINVALID error when in is not a request body of
// a codec's format.
func SpliceRequest(in *chat.Input, res *Result) ([]byte, error) {
	return SpliceRequestWith(in, res, SpliceOptions{})
}

// SpliceOptions say how SpliceRequestWith writes a body.
type SpliceOptions struct {
	// CacheBreakpoints is BreakpointsAuto ("" means it: a cache_control
	// mark on the memory block of an Anthropic request whose other marks
	// number fewer than MaxBreakpoints) or BreakpointsOff.
	CacheBreakpoints string
}

// SpliceRequestWith is SpliceRequest with options: the input format's
// codec (chat.CodecOf) writes the body.
func SpliceRequestWith(in *chat.Input, res *Result, o SpliceOptions) ([]byte, error) {
	return chat.Splice(in, output(res, o.CacheBreakpoints))
}

// CountBody returns the tokens of the messages of body, a request body of
// format f (chat.Parse reads it), as c counts them: a compressed request
// as it goes out, its memory wherever the codec wrote it.
func (c *Compressor) CountBody(body []byte, f chat.Format) (int, error) {
	return c.CountBodyModel(body, f, "")
}

// CountBodyModel is CountBody for a request to model, the one its URL
// names (chat.ParseOwnedModel: a Gemini request's media count by it).
func (c *Compressor) CountBodyModel(body []byte, f chat.Format, model string) (int, error) {
	return c.CountBodyFiles(body, f, model, nil)
}

// CountBodyFiles is CountBodyModel with files telling the lengths of the
// audio and video the request names by URI (chat.ParseOwnedFiles).
func (c *Compressor) CountBodyFiles(body []byte, f chat.Format, model string, files chat.FileLengths) (int, error) {
	in, err := chat.ParseOwnedFiles(bytes.Clone(body), f, model, files)
	if err != nil {
		return 0, err
	}
	return c.CountMessages(in.Messages), nil
}

// MaxBreakpoints is the most cache_control marks the Messages API takes
// in one request (chat.MaxBreakpoints).
const MaxBreakpoints = chat.MaxBreakpoints

// output is what a codec writes into a request for res, with the cache
// breakpoints setting bp.
func output(res *Result, bp string) chat.Output {
	return chat.Output{Messages: res.Messages, Source: res.Source, Memory: res.Memory, Rewritten: res.Rewritten, Calls: res.Calls, NoCacheMark: bp == BreakpointsOff}
}

// WithBudget returns a copy of c with another budget that shares c's
// memos (gists, anchors, entity counts and plans do not depend on the
// budget), so one process compressing to many budgets holds one set. It
// returns an EINVALID error when budget is not positive.
func (c *Compressor) WithBudget(budget int) (*Compressor, error) {
	if budget <= 0 {
		return nil, swc.Errorf(swc.EINVALID, "budget must be positive (got %d)", budget)
	}
	cc := *c
	cc.opts.Budget = budget
	return &cc, nil
}

// MemorySource gives the memory message of a history's first n
// conversation messages (instructions left out) in at most room tokens,
// the whole message counted (content and MessageOverhead): its content,
// or ok=false to have the Compressor consolidate them itself.
type MemorySource func(ctx context.Context, n, room int) (content string, ok bool)

// WithMemory returns a copy of c (sharing its memos) whose epochs take
// their memory from src when it has one: a store's consolidation, say.
// Only Epoch compaction asks it; a content that does not fit room is not
// used.
func (c *Compressor) WithMemory(src MemorySource) *Compressor {
	cc := *c
	cc.source = src
	return &cc
}

// After returns a copy of c (sharing its memos) that compresses the
// continuation of a history whose earlier messages are not given (a
// store's bounded read of a long conversation): Compress walks the given
// messages as if a boundary were already behind them (the memory's room
// reserved from the first one on, under either compaction), never answers
// Fits, and asks src for the memory of the messages before the boundary
// (those not given and the n given conversation messages before it, n
// possibly 0). When src has none, the n given ones are consolidated, or,
// when n is 0, no memory message is sent.
func (c *Compressor) After(src MemorySource) *Compressor {
	cc := *c
	cc.source, cc.after = src, true
	return &cc
}

// WithHistoryHandles returns a copy of c whose chat memories show the
// handles of what they do not hold whole (Options.HistoryHandles),
// sharing c's memos.
func (c *Compressor) WithHistoryHandles() *Compressor {
	cc := *c
	cc.opts.HistoryHandles = true
	return &cc
}

// WithAlignUser returns a copy of c whose kept messages start at a user
// message (Options.AlignUser), as some formats need (chat.Codec's
// AlignUser).
func (c *Compressor) WithAlignUser() *Compressor {
	cc := *c
	cc.opts.AlignUser = true
	return &cc
}
