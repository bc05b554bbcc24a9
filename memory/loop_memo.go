package memory

import (
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/observe"
)

// The memos of tool loops: a jump of the masking boundary writes the
// stubs of the observations it passes and leaves the others, so a stub
// written once is reused; the identifiers of a text are found once.

// stubKey names a stub by its observation and options, Known and Focus
// aside: those are checked against the answers the stub was written with.
type stubKey struct {
	handle, tool, args, same string
	isError, omitCall        bool
	max                      int
	minValue                 float64
}

// stubVal is a stub and the questions Stub asked of Known and Focus while
// writing it, with their answers: a stub is reused only where the same
// questions get the same answers, so it is what Stub would write.
type stubVal struct {
	text  string
	asked []stubAsk
}

type stubAsk struct {
	id            string
	focus, answer bool // focus: asked of Focus, else of Known
}

func newStubMemo(bytes int) *memo.Memo[stubKey, stubVal] {
	return memo.New(bytes, func(k stubKey, v stubVal) int {
		n := len(k.handle) + len(k.tool) + len(k.args) + len(v.text)
		for _, a := range v.asked {
			n += len(a.id) + 24
		}
		return n
	})
}

func newIDMemo(bytes int) *memo.Memo[string, []string] {
	return memo.New(bytes, func(k string, v []string) int {
		n := len(k) + 24*len(v)
		for _, s := range v {
			n += len(s)
		}
		return n
	})
}

// stub returns observe.Stub(ob, opt), remembered.
func (c *Compressor) stub(ob observe.Observation, opt observe.StubOptions) string {
	key := stubKey{handle: opt.Handle, tool: ob.Tool, args: ob.Arguments, same: opt.Same, isError: ob.IsError, omitCall: opt.OmitCall, max: opt.MaxTokens, minValue: opt.MinValue}
	ask := func(f func(string) bool, id string) bool { return f != nil && f(id) }
	if v, ok := c.memos.stubs.Get(key); ok {
		same := true
		for _, a := range v.asked {
			f := opt.Known
			if a.focus {
				f = opt.Focus
			}
			if ask(f, a.id) != a.answer {
				same = false
				break
			}
		}
		if same {
			return v.text
		}
	}
	var asked []stubAsk
	rec := opt
	rec.Known = func(id string) bool {
		ans := ask(opt.Known, id)
		asked = append(asked, stubAsk{id: id, answer: ans})
		return ans
	}
	rec.Focus = func(id string) bool {
		ans := ask(opt.Focus, id)
		asked = append(asked, stubAsk{id: id, focus: true, answer: ans})
		return ans
	}
	text := observe.Stub(ob, rec)
	c.memos.stubs.Put(key, stubVal{text: text, asked: asked})
	return text
}

// identifiers returns observe.Identifiers(text), remembered.
func (c *Compressor) identifiers(text string) []string {
	if v, ok := c.memos.ids.Get(text); ok {
		return v
	}
	v := observe.Identifiers(text)
	c.memos.ids.Put(text, v)
	return v
}

// longText is the length from which countText remembers a text's count
// whole: the tokens package remembers a long text's lines, which costs a
// lookup per line on every request of a loop that resends its outputs.
const longText = 512

// countText returns the tokens of a message's text (CountCached), a long
// text's remembered whole.
func (c *Compressor) countText(s string) int {
	if len(s) < longText {
		return c.counter.CountCached(s)
	}
	if n, ok := c.memos.counts.Get(s); ok {
		return n
	}
	n := c.counter.CountCached(s)
	c.memos.counts.Put(s, n)
	return n
}
