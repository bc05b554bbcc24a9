package trajectory

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"regexp"
	"slices"

	"github.com/swcmem/swc/internal/rawjson"
)

// Anthropic's prompt cache serves a request's prefix only up to a point
// an earlier request wrote with a cache_control mark, and looks for one
// from each of the request's own marks back about markLookback content
// blocks. markCache models it for one run under one condition: the
// client marks its last message (as Claude Code does), the sent body
// carries whatever marks the condition added, and every mark writes the
// prefix up to it.

// markLookback is how many content blocks before a mark the provider
// looks for a cached prefix.
const markLookback = 20

// markCache holds the prefixes earlier requests of a run wrote.
type markCache struct{ written map[[32]byte]bool }

// serve returns the bytes of cur's prefix units the cache serves (0 when
// none) and writes the prefixes at cur's marks. Prefixes end at unit
// boundaries: the lead's blocks (Anthropic's system blocks), then the
// messages; the other fields (tools, model, …) are part of every
// prefix.
func (mc *markCache) serve(cur *sent, list string) (cached int) {
	if mc.written == nil {
		mc.written = map[[32]byte]bool{}
	}
	units := cur.prefixUnits()
	n := len(units)
	if len(cur.items) == 0 || n == 0 {
		return 0
	}
	h := sha256.New()
	keys := make([]string, 0, len(cur.top))
	for k := range cur.top {
		if k != list && k != cur.leadKey {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write(markRE.ReplaceAll(bytes.TrimSpace(cur.top[k]), nil))
	}
	prefix := make([][32]byte, n) // prefix[i]: the fields and units 0..i
	size := make([]int, n)        // size[i]: the bytes of units 0..i
	blocks := make([]int, n)
	var marks []int
	for i, u := range units {
		h.Write(markRE.ReplaceAll(u.key, nil)) // a mark is not part of what is cached
		h.Sum(prefix[i][:0])
		size[i] = u.size
		if i > 0 {
			size[i] += size[i-1]
		}
		blocks[i] = u.blocks
		if i == n-1 || markRE.Match(u.key) {
			marks = append(marks, i)
		}
	}
	for _, p := range marks {
		back := 0
		for q := p; q >= 0 && back <= markLookback; q-- {
			if mc.written[prefix[q]] {
				cached = max(cached, size[q])
				break
			}
			back += blocks[q]
		}
	}
	for _, p := range marks {
		mc.written[prefix[p]] = true
	}
	return cached
}

// markRE matches a cache_control member: the provider's cache key is
// the content, so a mark that moved does not change a prefix.
// With the comma before it when it has one (the first alternative starts
// there, earlier, so it wins), else with the comma after it: either way
// the object is left as it would be without the member. A `"` inside a
// JSON string is escaped, so only a key matches.
var markRE = regexp.MustCompile(`,\s*"cache_control"\s*:\s*\{[^{}]*\}|"cache_control"\s*:\s*\{[^{}]*\}\s*,?`)

// contentBlocks is how many content blocks a message holds: its content
// list's length, or one.
func contentBlocks(item []byte) int {
	var content json.RawMessage
	if decodeContent(item, &content) != nil {
		return 1
	}
	blocks, err := rawjson.Array(content)
	if err != nil || len(blocks) == 0 {
		return 1
	}
	return len(blocks)
}
