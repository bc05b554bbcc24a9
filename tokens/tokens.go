// Package tokens is the project's one tokenizer: OpenAI's cl100k_base BPE
// through github.com/tiktoken-go/tokenizer, whose vocabulary is compiled into
// the binary (no download). Every token count in swc — budgets, reports,
// Tok/Q — comes from Count.
package tokens

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	memopkg "github.com/swcmem/swc/internal/memo"
	"github.com/tiktoken-go/tokenizer"
)

// Name is the tokenizer's name as reports print it.
const Name = "cl100k_base"

// loads counts how often the vocabulary was loaded (tests check that
// importing the package loads nothing).
var loads atomic.Int32

// get returns the codec, loading the vocabulary (20–25 ms) on first use
// rather than at program start, so that commands that count no tokens
// (version, help) start fast.
var get = sync.OnceValue(func() tokenizer.Codec {
	loads.Add(1)
	c, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		panic("tokens: cl100k_base is compiled in but failed to load: " + err.Error())
	}
	return c
})

// encodeCount counts s with the codec, cutting plain text into pieces
// itself (countText; a variable so that tests can make the encoder fail).
var encodeCount = countText

// firstErr holds the first encoder error Count met in this process.
var firstErr atomic.Pointer[error]

// Count returns the number of cl100k_base tokens in s. It is safe for
// concurrent use. When the encoder fails (it should not: it reads any
// string, invalid UTF-8 included), Count returns len(s), an upper bound
// (a token covers at least one byte), so that a budget checked with it
// still holds, and records the error for Err; CountErr returns it.
//
// A long multi-line text is counted as the sum of its lines' memoised
// counts (see countLines), which is exact and makes contexts built from
// the same turns cheap to count again.
func Count(s string) int {
	if len(s) >= splitMin {
		if n, ok := countLines(s); ok {
			return n
		}
	}
	return countRaw(s)
}

// countRaw runs the encoder on all of s (see Count for failures).
func countRaw(s string) int {
	n, err := CountErr(s)
	if err != nil {
		firstErr.CompareAndSwap(nil, &err)
		return len(s)
	}
	return n
}

// CountErr returns the number of cl100k_base tokens in s, or 0 and the
// encoder's error.
func CountErr(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := encodeCount(s)
	if err != nil {
		return 0, fmt.Errorf("tokens: count %d bytes with %s: %w", len(s), Name, err)
	}
	return n, nil
}

// Err returns the first encoder error Count met in this process (its
// counts there are byte counts, upper bounds), or nil. The CLI checks it
// after every command and fails when it is set.
func Err() error {
	if p := firstErr.Load(); p != nil {
		return *p
	}
	return nil
}

// resetErr forgets the recorded error (tests).
func resetErr() { firstErr.Store(nil) }

// memo holds CountCached's counts: about MemoBytes of texts per
// generation (see memo.Memo), so a long-running service keeps counting
// its recent texts from memory.
var countMemo = newMemo()

func newMemo() *memopkg.Memo[string, int] {
	return memopkg.NewShared(MemoBytes, func(s string, _ int) int { return len(s) })
}

// MemoBytes bounds the text each generation of CountCached's memo holds.
const MemoBytes = 64 << 20

// CountCached is Count with a process-wide memo, for texts counted again
// and again (turns, headers) by strategies and replay. A long multi-line
// text is not remembered whole: its lines are (see Count), so a context
// rendered from known turns is counted from memory. It is safe for
// concurrent use.
func CountCached(s string) int {
	// A text split into lines is never remembered whole (its lines are),
	// so it is split before the memo is asked.
	if len(s) >= splitMin {
		if n, ok := countLines(s); ok {
			return n
		}
	}
	if v, ok := countMemo.Get(s); ok {
		return v
	}
	n := countRaw(s)
	countMemo.Put(s, n)
	return n
}

// Truncate returns the longest prefix of s, cut at a token boundary and
// then back to a whole UTF-8 character, with at most max tokens. It
// returns "" when max <= 0 or s cannot be encoded.
func Truncate(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if plainPrefix(s) == len(s) {
		if out, ok := truncatePlain(s, max); ok {
			return out
		}
	}
	return truncateLibrary(s, max)
}

// truncatePlain is Truncate of a plain text (plainPrefix): whole pieces
// while their remembered counts fit, then the library's encoding of the
// one piece that does not (byte-pair merges stay inside a piece, so the
// text's tokens are its pieces' in order). It reports false when the
// library fails.
func truncatePlain(s string, max int) (string, bool) {
	n := 0
	for i := 0; i < len(s); {
		j := pieceEnd(s, i)
		if c := pieceCount(s[i:j]); n+c <= max {
			n, i = n+c, j
			continue
		}
		ids, _, err := get().Encode(s[i:j])
		if err != nil || len(ids) < max-n {
			return "", false
		}
		out, err := get().Decode(ids[:max-n])
		if err != nil {
			return "", false
		}
		k := i + min(len(out), j-i)
		for k > 0 && !utf8.ValidString(s[:k]) {
			k--
		}
		return s[:k], true
	}
	return s, true
}

// truncateLibrary is Truncate by the library's encoding of s: of a
// prefix of it when that holds max tokens with room to spare. The
// encoder splits a text into pieces by a pattern that looks at most a
// character past a piece, and merges bytes inside a piece only, so the
// tokens ending more than truncateMargin bytes before the end of a
// prefix are the whole text's: a prefix of about 6 bytes a token (and
// 4 times that until it holds enough) spares encoding a long turn whole
// to keep its start (a 100,000-token output cut to 2,000 tokens).
func truncateLibrary(s string, max int) string {
	for p := min(len(s), 6*max+4*truncateMargin); ; p = min(len(s), 4*p) {
		for p < len(s) && !utf8.RuneStart(s[p]) {
			p++
		}
		ids, _, err := get().Encode(s[:p])
		if err != nil {
			return ""
		}
		if len(ids) <= max {
			if p == len(s) {
				return s
			}
			continue
		}
		out, err := get().Decode(ids[:max])
		if err != nil {
			return ""
		}
		if p < len(s) && len(out)+truncateMargin > p {
			continue // the cut may have moved the last tokens: a longer prefix
		}
		// The tokens are the bytes of s, but one can end inside a
		// multi-byte character: keep whole characters only.
		n := min(len(out), len(s))
		for n > 0 && !utf8.ValidString(s[:n]) {
			n--
		}
		return s[:n]
	}
}

// truncateMargin is how many bytes before the end of an encoded prefix
// the last kept token must end for truncateLibrary to trust it: more than
// the longest piece the pattern makes of ordinary text, a run of spaces
// or letters, would reach back (a longer run is cut within the margin
// anyway, the encoder's pieces of it being the same up to there).
const truncateMargin = 256
