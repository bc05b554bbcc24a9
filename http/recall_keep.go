package http

import (
	"encoding/binary"
	"hash/maphash"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/memo"
)

// The handles of observations, remembered. A tool loop's requests resend
// every observation of the request before, and the proxy keeps the
// originals of the stubbed and dropped ones under their handles
// (keepOriginals): a handle is a SHA-256 of the call id and the output,
// and a user message's is asked whether it has an observation's shape
// first. Both are pure functions of the message, so each text's answer is
// remembered, by a fast hash of its content: a request costs the hashing
// of what is new.

// handleMemoBytes bounds the handles remembered (per generation): about
// 100 bytes each.
const handleMemoBytes = 4 << 20

// obsKey names a message's text for the handle memo: whether it is a
// tool result, its call id and its content, by two 64-bit maphashes
// with seeds of this process (128 bits: a memo's key needs to name its
// value in this process only).
type obsKey [2]uint64

var obsSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func obsKeyOf(m swc.Message) obsKey {
	var k obsKey
	var head [9]byte
	if m.Role == swc.RoleTool {
		head[0] = 1
	}
	binary.LittleEndian.PutUint64(head[1:], uint64(len(m.ToolCallID)))
	for j, seed := range obsSeeds {
		var h maphash.Hash
		h.SetSeed(seed)
		h.Write(head[:])
		h.WriteString(m.ToolCallID)
		h.WriteString(m.Content)
		k[j] = h.Sum64()
	}
	return k
}

func newHandleMemo() *memo.Memo[obsKey, string] {
	return memo.New(handleMemoBytes, func(_ obsKey, h string) int { return 16 + len(h) })
}

// handleOf returns observationHandle(msgs, i), the handle remembered by
// the message's content ("" remembered for a user message that is not an
// observation; whether it is the first user message is asked each time).
func (s *Server) handleOf(msgs []swc.Message, i int) (string, bool) {
	h, _, ok := s.handleKeyed(msgs, i)
	return h, ok
}

// handleKeyed is handleOf, with the message's key in the handle memo.
func (s *Server) handleKeyed(msgs []swc.Message, i int) (string, obsKey, bool) {
	m := msgs[i]
	if m.Role != swc.RoleTool && m.Role != swc.RoleUser {
		return "", obsKey{}, false
	}
	if m.Role == swc.RoleUser && !laterUser(msgs, i) {
		return "", obsKey{}, false
	}
	k := obsKeyOf(m)
	if s.proxy == nil || s.proxy.handles == nil {
		h, ok := observationHandle(msgs, i)
		return h, k, ok
	}
	if h, ok := s.proxy.handles.Get(k); ok {
		return h, k, h != ""
	}
	h, _ := observationHandle(msgs, i)
	s.proxy.handles.Put(k, h)
	return h, k, h != ""
}

// laterUser reports whether a user message comes before message i.
func laterUser(msgs []swc.Message, i int) bool {
	for _, p := range msgs[:i] {
		if p.Role == swc.RoleUser {
			return true
		}
	}
	return false
}
