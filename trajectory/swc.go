package trajectory

import (
	"context"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
)

// SWC is swc's compressor as `swc compress` and the proxy run it: a
// memory.Compressor at the budget (its memos shared across budgets),
// keeping Anthropic requests' messages from a user message on, and the
// compressed messages spliced into the request body (memory.SpliceRequest;
// a request already within the budget goes unchanged).
type SWC struct {
	name string
	base *memory.Compressor
}

// NewSWC returns the condition named name compressing with base (built
// with memory.New; its budget is replaced by each request's).
func NewSWC(name string, base *memory.Compressor) *SWC { return &SWC{name: name, base: base} }

func (s *SWC) Name() string { return s.name }

func (s *SWC) Compress(ctx context.Context, q *Request, budget int) ([]byte, error) {
	c, err := s.base.WithBudget(budget)
	if err != nil {
		return nil, err
	}
	if cd, ok := chat.CodecOf(q.Input.Format); ok && cd.AlignUser() {
		c = c.WithAlignUser()
	}
	res, err := c.Compress(ctx, q.Input.Messages)
	if err != nil {
		return nil, err
	}
	if res.Fits {
		return q.Body, nil
	}
	return memory.SpliceRequestWith(q.Input, res, memory.SpliceOptions{CacheBreakpoints: c.Options().CacheBreakpoints})
}
