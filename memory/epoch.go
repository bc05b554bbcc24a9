package memory

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"

	"github.com/swcmem/swc"
)

// Epoch compaction. A history is walked message by message from its start
// with a boundary b (0 at first): the memory message will hold the
// conversation messages before b, and those from b on go verbatim. While
// the instructions, the memory's room (0 while b is 0) and the messages
// from b fit the budget, b stays; when they no longer do, b jumps so that
// the tail restarts small (the last KeepRecent messages, at most
// RestartShare of the budget). The walk over a prefix depends on that
// prefix only, so an agent whose history grows by appends keeps its
// boundary, and its memory message, until the next jump: whichever
// process, replica or restart computes it.

// room returns the memory message's room under Epoch: MemoryShare of what
// the instructions leave.
func (c *Compressor) room(instrCost int) int {
	return int(c.opts.MemoryShare * float64(c.opts.Budget-instrCost))
}

// boundary returns the position in conv (indexes of msgs) where the
// verbatim tail starts, and the memory's room. A tail that cannot be made
// to fit with the room (its messages alone are too big, or no message may
// start it) keeps the last boundary that could.
func (c *Compressor) boundary(msgs []swc.Message, conv []int, instrCost int) (start, room int) {
	o := c.opts
	room = c.room(instrCost)
	free := o.Budget - instrCost // for the memory and the tail
	restart := int(o.RestartShare * float64(free))
	keep := max(o.KeepRecent, 1)
	costs := make([]int, len(conv))
	b, tail := 0, 0
	for k, i := range conv {
		costs[k] = c.Cost(msgs[i])
		tail += costs[k]
		reserve := 0
		if b > 0 || c.after { // After's: a boundary is behind the messages given
			reserve = room
		}
		if reserve+tail <= free {
			continue
		}
		s := c.restart(msgs, conv, costs, b, k, keep, restart, free-room)
		for ; b < s; b++ {
			tail -= costs[b]
		}
	}
	return b, room
}

// restart returns where the tail starts after a jump at message k from
// boundary b: the last keep messages, fewer while they hold more than
// limit tokens or more than fit (the tail's room), moved to a message that
// may start a tail (not a tool result; with AlignUser a user message) —
// back when the pair still fits, else forward to the first that fits, else
// the last one (the shortest tail). With AlignUser and no user message in
// (b, k], an assistant turn after the task may start it (mayStart; the
// task is then kept before the tail). It returns b when no message of
// (b, k] may start a tail.
func (c *Compressor) restart(msgs []swc.Message, conv []int, costs []int, b, k, keep, limit, fit int) int {
	s := c.restartAt(msgs, conv, costs, b, k, keep, limit, fit, false)
	if s == b && c.opts.AlignUser {
		s = c.restartAt(msgs, conv, costs, b, k, keep, limit, fit, true)
	}
	return s
}

// restartAt is restart, assistant turns allowed to start a tail or not.
func (c *Compressor) restartAt(msgs []swc.Message, conv []int, costs []int, b, k, keep, limit, fit int, asst bool) int {
	if b >= k {
		return b
	}
	ok := func(s int) bool {
		r := msgs[conv[s]].Role
		if r == swc.RoleTool {
			return false
		}
		if asst {
			return c.mayStart(msgs, conv, s)
		}
		return !c.opts.AlignUser || r == swc.RoleUser
	}
	s := max(k+1-keep, b+1)
	t := 0
	for j := s; j <= k; j++ {
		t += costs[j]
	}
	for s < k && (t > limit || t > fit) {
		t -= costs[s]
		s++
	}
	// Back to a valid start while the tail still fits.
	bs, bt := s, t
	for bs-1 > b && !ok(bs) {
		bs--
		bt += costs[bs]
	}
	if ok(bs) && bt <= fit {
		return bs
	}
	// Forward to the first valid start that fits, else the last valid one.
	last := b
	for f, ft := s, t; f <= k; f++ {
		if ok(f) {
			if ft <= fit {
				return f
			}
			last = f
		}
		ft -= costs[f]
	}
	return last
}

// memoryKey names the memory message of the history messages at room:
// the settings it depends on and every field of the messages a strategy
// reads.
func (c *Compressor) memoryKey(msgs []swc.Message, history []int, room int) [32]byte {
	o := c.opts
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%v\x00%d\x00%+v\x00%+v\x00", o.Strategy, o.Tokenizer, room, o.SessionGap, o.SessionTurns, o.Config, o.Schedule)
	writeMessages(h, msgs, history)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// writeMessages writes to h every field of the messages msgs[i], i in
// idx, that compression reads, with their indexes.
func writeMessages(h hash.Hash, msgs []swc.Message, idx []int) {
	var n [8]byte
	num := func(h hash.Hash, v int64) { binary.LittleEndian.PutUint64(n[:], uint64(v)); h.Write(n[:]) }
	str := func(h hash.Hash, s string) { num(h, int64(len(s))); h.Write([]byte(s)) }
	for _, i := range idx {
		m := &msgs[i]
		num(h, int64(i))
		str(h, string(m.Role))
		str(h, m.Name)
		str(h, m.Content)
		str(h, m.ToolCallID)
		str(h, m.ID)
		str(h, m.Session)
		if m.Time.IsZero() {
			num(h, 0)
		} else {
			num(h, m.Time.UnixNano())
		}
		num(h, int64(len(m.ToolCalls)))
		for _, tc := range m.ToolCalls {
			str(h, tc.ID)
			str(h, tc.Name)
			str(h, tc.Arguments)
		}
	}
}
