package memory

import (
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/observe"
)

// What a tool loop's requests repeat, remembered. A jump of a loop's
// boundaries rewrites its epoch (loopEpoch) from the start: the line of
// every dropped call and the handles of its observations, and for every
// kept assistant turn whether its calls read, edit or search. Those are pure functions of a message, so each is
// computed once per Compressor; and asLoop asks of every user message
// whether it is an observation, once per text.

// loopMemos are the memos of this file, held by memos.
type loopMemos struct {
	drops *memo.Memo[dropKey, string]    // dropLine
	looks *memo.Memo[string, bool]       // looksAtMatch
	cmds  *memo.Memo[string, string]     // command
	hands *memo.Memo[handleKey, string]  // observe.Handle
	calls *memo.Memo[callsKey, callsVal] // clipCalls
	saves *memo.Memo[callsKey, int]      // turnSaving
}

func newLoopMemos(bytes int) loopMemos {
	return loopMemos{
		drops: memo.New(bytes, func(k dropKey, v string) int {
			return len(k.handle) + len(k.tool) + len(k.args) + len(k.output) + len(v)
		}),
		looks: memo.New(bytes, func(k string, _ bool) int { return len(k) }),
		cmds:  memo.New(bytes, func(k, v string) int { return len(k) + len(v) }),
		hands: memo.New(bytes, func(k handleKey, v string) int { return len(k.callID) + len(k.output) + len(v) }),
		saves: memo.New(bytes, func(k callsKey, _ int) int {
			return len(k.role) + len(k.name) + len(k.content) + len(k.calls) + 56
		}),
		calls: memo.New(bytes, func(k callsKey, v callsVal) int {
			n := len(k.role) + len(k.name) + len(k.content) + len(k.calls) + len(v.handle) + 48
			for _, tc := range v.calls {
				n += len(tc.ID) + len(tc.Name) + len(tc.Arguments) + 48
			}
			return n
		}),
	}
}

// callsKey names an assistant message for clipCalls: all that its
// handle (HistoryHandle) reads.
type callsKey struct {
	role, name, content, calls string
	time                       int64
}

// callsKeyOf returns the key of assistant message m.
func callsKeyOf(m swc.Message) callsKey {
	var b strings.Builder
	for _, tc := range m.ToolCalls {
		b.WriteString(tc.ID + "\x00" + tc.Name + "\x00" + tc.Arguments + "\x01")
	}
	return callsKey{role: string(m.Role), name: m.Name, content: m.Content, calls: b.String(), time: m.Time.UnixNano()}
}

type callsVal struct {
	calls  []swc.ToolCall
	handle string
	ok     bool
}

// clipCallsOf returns c.clipCalls(m), remembered: every jump of a loop's
// boundary asks it of every old turn again, and the turn's handle is a
// SHA-256 of the whole turn.
func (c *Compressor) clipCallsOf(m swc.Message) ([]swc.ToolCall, string, bool) {
	long := false
	for _, tc := range m.ToolCalls {
		long = long || len(tc.Arguments) >= 4*c.clipArgTokens()
	}
	if !long || c.opts.TurnTokens <= 0 {
		return nil, "", false
	}
	k := callsKeyOf(m)
	if v, ok := c.memos.loop.calls.Get(k); ok {
		return v.calls, v.handle, v.ok
	}
	cs, h, ok := c.clipCalls(m)
	c.memos.loop.calls.Put(k, callsVal{calls: cs, handle: h, ok: ok})
	return cs, h, ok
}

// turnSavingOf returns how many tokens clipping old assistant turn m
// saves (turnHead, clipCalls): its tokens whole less its tokens clipped;
// 0 when nothing of it is. Remembered: every request's walk asks it of
// every turn its boundary passes.
func (c *Compressor) turnSavingOf(m swc.Message) int {
	if c.opts.TurnTokens <= 0 {
		return 0
	}
	k := callsKeyOf(m)
	if v, ok := c.memos.loop.saves.Get(k); ok {
		return v
	}
	short, changed := m, false
	if t, _, ok := c.turnHead(m, c.opts.TurnTokens); ok {
		short.Content, short.MediaTokens, changed = t, 0, true
	}
	if cs, _, ok := c.clipCallsOf(m); ok {
		short.ToolCalls, changed = cs, true
	}
	v := 0
	if changed {
		v = max(c.Cost(m)-c.Cost(short), 0)
	}
	c.memos.loop.saves.Put(k, v)
	return v
}

// dropKey names a dropped call's line: its observation whole (the
// output itself, not only its handle, so two outputs never share a line)
// and its handle.
type dropKey struct {
	handle, tool, args, output string
	isError                    bool
}

// dropLineOf returns c.dropLine(ob, handle), remembered.
func (c *Compressor) dropLineOf(ob observe.Observation, handle string) string {
	k := dropKey{handle: handle, tool: ob.Tool, args: ob.Arguments, output: ob.Output, isError: ob.IsError}
	if v, ok := c.memos.loop.drops.Get(k); ok {
		return v
	}
	v := c.dropLine(ob, handle)
	c.memos.loop.drops.Put(k, v)
	return v
}

// handleKey names an observation's handle: its call id and output.
type handleKey struct{ callID, output string }

// handle returns observe.Handle(callID, output), remembered: a map's
// hash of the output instead of a SHA-256 of a copy of it.
func (c *Compressor) handle(callID, output string) string {
	k := handleKey{callID, output}
	if v, ok := c.memos.loop.hands.Get(k); ok {
		return v
	}
	v := observe.Handle(callID, output)
	c.memos.loop.hands.Put(k, v)
	return v
}

// looksAtCall returns looksAtMatch(s), remembered.
func (c *Compressor) looksAtCall(s string) bool {
	if v, ok := c.memos.loop.looks.Get(s); ok {
		return v
	}
	v := looksAtMatch(s)
	c.memos.loop.looks.Put(s, v)
	return v
}

// commandOf returns command(text), remembered.
func (c *Compressor) commandOf(text string) string {
	if v, ok := c.memos.loop.cmds.Get(text); ok {
		return v
	}
	v := command(text)
	c.memos.loop.cmds.Put(text, v)
	return v
}

// observations remembers observe.IsObservation of the texts asLoop asks
// about, process-wide (asLoop has no Compressor): a text that is not an
// observation is checked against every shape (about 1 µs for a short
// one, 3 µs for a long line), a lookup costs a hash of the text.
var observations = memo.NewShared(8<<20, func(text string, _ bool) int { return len(text) })

// isObservation returns observe.IsObservation(text), remembered but for
// a text that opens with a tag (<returncode>, <output>, …): the first
// tags IsObservation tries find those at once, quicker than a lookup
// hashes the text and stores it.
func isObservation(text string) bool {
	if t := strings.TrimLeft(text, " \t\r\n"); t != "" && t[0] == '<' && observe.IsObservation(text) {
		return true
	}
	if v, ok := observations.Get(text); ok {
		return v
	}
	v := observe.IsObservation(text)
	observations.Put(text, v)
	return v
}
