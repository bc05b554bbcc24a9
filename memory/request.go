package memory

import (
	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// SpliceRequest returns the request body in (a Chat Completions or Messages
// request parsed by chat.Parse) with its messages replaced by res's: kept
// messages byte for byte as they came, the memory (res.Memory) as a system
// message after the instructions (openai) or appended to "system"
// (anthropic). Every other field of the body is kept as it came. res may
// come from Compress or be assembled by the caller (Source -1 marks the
// memory message). It returns an EINVALID error when in is not a request
// body of either format.
func SpliceRequest(in *chat.Input, res *Result) ([]byte, error) {
	if in.Body == nil {
		return nil, swc.Errorf(swc.EINVALID, "not a request body: nothing to splice the messages into")
	}
	switch in.Format {
	case chat.OpenAI:
		return spliceOpenAI(in, res)
	case chat.Anthropic:
		return spliceAnthropic(in, res)
	}
	return nil, swc.Errorf(swc.EINVALID, "cannot splice messages into a %s input", in.Format)
}

// WithAlignUser returns a copy of c whose kept messages start at a user
// message (Options.AlignUser), as Anthropic requests need.
func (c *Compressor) WithAlignUser() *Compressor {
	cc := *c
	cc.opts.AlignUser = true
	return &cc
}
