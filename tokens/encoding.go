package tokens

import (
	"sync"

	"github.com/swcmem/swc"
	memopkg "github.com/swcmem/swc/internal/memo"
	"github.com/tiktoken-go/tokenizer"
)

// Encoding names a tokenizer the chat commands can count with.
type Encoding string

// The encodings the tokenizer library compiles in that swc offers:
// cl100k_base (the default, and what strategies count budgets with) and
// o200k_base (GPT-4o and later).
const (
	Cl100k Encoding = "cl100k_base"
	O200k  Encoding = "o200k_base"
)

// Counter counts tokens with one encoding. Get returns one.
type Counter struct {
	enc   Encoding
	once  sync.Once
	codec tokenizer.Codec
	memo  *memopkg.Memo[string, int]
}

var (
	o200kCounter  = &Counter{enc: O200k, memo: newMemo()}
	cl100kCounter = &Counter{enc: Cl100k}
)

// Get returns the counter of the named encoding ("" means cl100k_base), or
// an EINVALID error naming the encodings on offer.
func Get(name string) (*Counter, error) {
	switch Encoding(name) {
	case "", Cl100k:
		return cl100kCounter, nil
	case O200k:
		return o200kCounter, nil
	}
	return nil, swc.Errorf(swc.EINVALID, "unknown tokenizer %q (want cl100k_base or o200k_base)", name)
}

// Name returns the encoding's name.
func (c *Counter) Name() string { return string(c.enc) }

// Count returns the number of tokens in s. It is safe for concurrent use.
// cl100k_base counts are exactly the package's Count.
func (c *Counter) Count(s string) int {
	if c.enc == Cl100k {
		return Count(s)
	}
	if s == "" {
		return 0
	}
	c.once.Do(func() {
		codec, err := tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			panic("tokens: o200k_base is compiled in but failed to load: " + err.Error())
		}
		c.codec = codec
	})
	n, err := c.codec.Count(s)
	if err != nil {
		return len(s) // no encoding has more tokens than bytes: an upper bound keeps budgets safe
	}
	return n
}

// CountCached is Count with a memo (shared with CountCached for
// cl100k_base), for texts counted again and again.
func (c *Counter) CountCached(s string) int {
	if c.enc == Cl100k {
		return CountCached(s)
	}
	if v, ok := c.memo.Get(s); ok {
		return v
	}
	n := c.Count(s)
	c.memo.Put(s, n)
	return n
}
