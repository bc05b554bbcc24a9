package chat

import (
	"slices"

	"github.com/swcmem/swc"
)

// A Codec is one provider's wire format for messages, both ways: it reads
// a request body into an Input (what Parse does for its format) and
// writes a compressed request back (Splice), every byte the compression
// did not change sent as it came. Code that compresses looks a codec up by
// the Input's Format (CodecOf) and never names a format itself. Adding a
// provider is one codec here (a NAME.go reader and a NAME_write.go
// writer, registered in codecs) and its transport entry in http/.
type Codec interface {
	// Format is the format the codec reads and writes.
	Format() Format
	// AlignUser reports whether a request's first kept conversation
	// message must be a user message (the compressor's AlignUser).
	AlignUser() bool
	// Splice returns in's request body (in was read by this codec) with
	// its messages replaced by out's.
	Splice(in *Input, out Output) ([]byte, error)
	// parse reads trimmed data of the codec's format, not yet validated;
	// rd says what the request's URL and the proxy know beside the body
	// (Gemini: its media count by model, a file by its length).
	parse(data []byte, rd reading) (*Input, error)
}

// Output is what a codec writes into a request: the messages a
// compression kept, where each came from, and the memory that stands for
// the others. It holds no compression settings beyond how to write.
type Output struct {
	// Messages are the messages as sent; Source[k] is the input index
	// (in Input.Messages) of Messages[k], -1 for the memory message.
	Messages []swc.Message
	Source   []int
	// Memory is the memory message's text ("" when there is none).
	Memory string
	// Rewritten maps an input message index to the text that replaces
	// its content as sent; the message keeps every other field.
	Rewritten map[int]string
	// Calls maps an input message index (an assistant turn) to its tool
	// calls as sent when their arguments changed (a tool loop's old
	// calls, clipped): each call's arguments are written where its format
	// keeps them (splice_calls.go), every other byte as it came.
	Calls map[int][]swc.ToolCall
	// NoCacheMark leaves a provider's prompt-cache marks as the client
	// set them: no mark is added on the memory (Anthropic cache_control).
	NoCacheMark bool
	// KeepThinkingBinding leaves an Anthropic request's "thinking" field
	// as the client sent it; by default a compressed request that keeps a
	// thinking block gets thinking.block_binding.prefix_mismatch_behavior
	// "drop_block" (anthropic_binding.go), unless the client set one.
	KeepThinkingBinding bool
}

// codecs are the registered codecs by format.
var codecs = map[Format]Codec{
	OpenAI:    openAICodec{},
	Anthropic: anthropicCodec{},
	Responses: responsesCodec{},
	Gemini:    geminiCodec{},

	Interactions: interactionsCodec{},
}

// CodecOf returns the codec of format f, or false when f is not a
// request format (jsonl, locomo, auto).
func CodecOf(f Format) (Codec, bool) {
	c, ok := codecs[f]
	return c, ok
}

// Splice writes out into in's request body with in's codec. It returns an
// EINVALID error when in is not a request body of a codec's format.
func Splice(in *Input, out Output) ([]byte, error) {
	if in.Body == nil {
		return nil, swc.Errorf(swc.EINVALID, "not a request body: nothing to splice the messages into")
	}
	c, ok := CodecOf(in.Format)
	if !ok {
		return nil, swc.Errorf(swc.EINVALID, "cannot splice messages into a %s input", in.Format)
	}
	return c.Splice(in, out)
}

// pick returns the input messages idx, with out's rewritten contents.
func pick(in *Input, out Output, idx []int) []swc.Message {
	msgs := make([]swc.Message, len(idx))
	for i, k := range idx {
		msgs[i] = in.Messages[k]
		if text, ok := out.Rewritten[k]; ok {
			msgs[i].Content = text
		}
		if cs, ok := out.Calls[k]; ok {
			msgs[i].ToolCalls = cs
		}
	}
	return msgs
}

// originMessages returns each body element's messages (in.Origin), in order,
// and which messages out keeps.
func originMessages(in *Input, out Output) (msgs map[int][]int, kept map[int]bool) {
	msgs, kept = map[int][]int{}, map[int]bool{}
	for i, o := range in.Origin {
		if o >= 0 {
			msgs[o] = append(msgs[o], i)
		}
	}
	for _, src := range out.Source {
		if src >= 0 {
			kept[src] = true
		}
	}
	return msgs, kept
}

// keptWhole reports whether out keeps every message of msgs as it came
// (none left out, none rewritten).
func keptWhole(msgs []int, kept map[int]bool, rewritten map[int]string) bool {
	for _, i := range msgs {
		if _, rw := rewritten[i]; !kept[i] || rw {
			return false
		}
	}
	return true
}

// keptOrigins returns the body elements (in.Origin) that out keeps a
// message of, each once, in the order out first keeps one.
func keptOrigins(in *Input, out Output) []int {
	var origins []int
	done := map[int]bool{}
	for _, src := range out.Source {
		if src < 0 || in.Origin[src] < 0 || done[in.Origin[src]] {
			continue
		}
		done[in.Origin[src]] = true
		origins = append(origins, in.Origin[src])
	}
	return origins
}

// memoryOrigin returns the source message (a Chat Completions or
// Anthropic message, a Gemini content) the memory is appended to: the one
// it follows in out (a tool loop's memory comes after the task) when that
// is a user message kept whole, none of it rewritten; or -1 (the memory
// goes where the codec puts a conversation's: a system message of its
// own, the system field).
func memoryOrigin(in *Input, out Output) int {
	if out.Memory == "" {
		return -1
	}
	k := slices.Index(out.Source, -1)
	if k <= 0 || out.Source[k-1] < 0 {
		return -1
	}
	o := in.Origin[out.Source[k-1]]
	if o < 0 {
		return -1
	}
	for i, oi := range in.Origin {
		if oi != o {
			continue
		}
		if _, rw := out.Rewritten[i]; rw || in.Messages[i].Role != swc.RoleUser || !slices.Contains(out.Source[:k], i) {
			return -1
		}
	}
	return o
}
