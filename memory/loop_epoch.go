package memory

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/observe"
	"github.com/swcmem/swc/tokens"
)

// loopEpoch is what a loop's boundaries make of the messages before them:
// the stubs (by input index) and the memory message listing the dropped
// calls ("" when none). It depends on the messages before the masking
// boundary alone, so it is remembered and every request of the epoch gets
// it without writing a stub again.
type loopEpoch struct {
	rewritten map[int]string
	calls     map[int][]swc.ToolCall // old turns' calls with long arguments clipped (clipCalls)
	memory    string
	stubbed   int          // observations stubbed
	recall    []Recallable // the assistant turns clipped (Options.TurnTokens)
	dropped   int          // messages dropped
}

func (e *loopEpoch) size() int {
	n := len(e.memory) + 64 + 64*len(e.recall)
	for _, s := range e.rewritten {
		n += len(s) + 16
	}
	for _, cs := range e.calls {
		for _, tc := range cs {
			n += len(tc.ID) + len(tc.Name) + len(tc.Arguments) + 48
		}
	}
	return n
}

// loopEpochOf returns the epoch of boundaries b and d, remembered by the
// content of the messages before b (and the instructions and head).
func (c *Compressor) loopEpochOf(msgs []swc.Message, l *loopShape, lc *loopCosts, b, d, maxLines int) *loopEpoch {
	idx := append(append([]int(nil), l.instr...), l.head...)
	for _, u := range l.units[:b] {
		idx = append(idx, u.msgs...)
	}
	key := loopKey(msgs, idx, fmt.Sprintf("loop\x00%s\x00%d\x00%g\x00%g\x00%t\x00%d\x00%d\x00%d\x00%v\x00%d\x00", c.opts.Tokenizer, lc.stubCap, lc.share, c.opts.StubValue, c.opts.AlignUser, b, d, maxLines, l.at[:b], c.opts.TurnTokens))
	if e, ok := c.memos.loops.Get(key); ok {
		return e
	}
	e := c.loopEpoch(msgs, l, lc, b, d, maxLines)
	c.memos.loops.Put(key, e)
	return e
}

// loopEpoch writes the stubs of the observations of units [d, b) that
// cost more than a stub, and the memory message listing the calls of the
// exchanges before d. A stub's Known holds the identifiers of the
// instructions, the head and the kept assistant turns up to its own; its
// Focus those of the task and of the arguments of the calls up to its own
// that read, edit or search. An observation whose call (tool and
// arguments) and output are those of an earlier one stubbed here, byte
// for byte (a file viewed again unchanged, a status asked twice), is
// stubbed as its first line and a line naming the earlier stub's handle
// (observe.StubOptions.Same). A stub so depends on the messages up to its
// own exchange alone and on the drop point (a drop of the earlier one
// makes the later one's stub whole; a drop moves every message after the
// head anyway): a jump of b rewrites the observations it passes and
// leaves the stubs written before as they were.
func (c *Compressor) loopEpoch(msgs []swc.Message, l *loopShape, lc *loopCosts, b, d, maxLines int) *loopEpoch {
	known, focus := map[string]bool{}, map[string]bool{}
	add := func(set map[string]bool, text string) {
		for _, id := range c.identifiers(text) {
			set[id] = true
		}
	}
	for _, i := range l.instr {
		add(known, msgs[i].Content)
	}
	for _, i := range l.head {
		add(known, msgs[i].Content)
	}
	add(focus, msgs[l.head[len(l.head)-1]].Content) // the task
	opt := observe.StubOptions{
		OmitCall:  true, // the assistant turn above holds it
		MaxTokens: c.opts.StubTokens,
		MinValue:  max(c.opts.StubValue, 0),
		Known:     func(id string) bool { return known[id] },
		Focus:     func(id string) bool { return focus[id] },
	}
	e := &loopEpoch{rewritten: map[int]string{}, calls: map[int][]swc.ToolCall{}}
	var lines, handles []string // a dropped call's line and handle ("" for a turn without one)
	seen := 0                   // the units whose assistant turns known and focus hold
	learn := func(to int) {
		for ; seen < to; seen++ {
			un := &l.units[seen]
			if un.user {
				continue
			}
			a := &msgs[un.msgs[0]]
			if seen >= d || un.pinned {
				text := a.Content
				if t, ok := e.rewritten[un.msgs[0]]; ok {
					text = t
				}
				add(known, text)
				calls := a.ToolCalls
				if cs, ok := e.calls[un.msgs[0]]; ok {
					calls = cs
				}
				for _, tc := range calls {
					add(known, tc.Arguments)
				}
			}
			for _, tc := range a.ToolCalls {
				if c.looksAtCall(tc.Name + " " + tc.Arguments) {
					add(focus, tc.Arguments)
				}
			}
			if cmd := c.commandOf(a.Content); len(a.ToolCalls) == 0 && c.looksAtCall(cmd) {
				add(focus, cmd)
			}
		}
	}
	for u := range l.units[:c.clipTo(l, lc, b)] {
		un := &l.units[u]
		// Only a turn that acted: an answer with no call or command
		// observed (a report to the person) is what was said, kept whole.
		if un.user || len(un.obs) == 0 || u < d && !un.pinned {
			continue
		}
		i := un.msgs[0]
		recalled := false
		if t, h, ok := c.turnHead(msgs[i], c.opts.TurnTokens); ok {
			e.rewritten[i] = t
			if h != "" {
				e.recall = append(e.recall, Recallable{Handle: h, First: -1, Last: -1, Messages: []int{i}})
				recalled = true
			}
		}
		if cs, h, ok := c.clipCallsOf(msgs[i]); ok {
			e.calls[i] = cs
			if !recalled {
				e.recall = append(e.recall, Recallable{Handle: h, First: -1, Last: -1, Messages: []int{i}})
			}
		}
	}
	type call struct{ tool, args, output string }
	same := map[call]string{} // a stubbed call and its output → the first stub's handle
	for u := range l.units[:b] {
		un := &l.units[u]
		if un.user {
			continue
		}
		if u < d && !un.pinned {
			e.dropped += len(un.msgs)
			ls, hs := c.droppedLines(msgs, un)
			lines, handles = append(lines, ls...), append(handles, hs...)
			continue
		}
		learn(max(u+1, l.at[u]))
		for _, i := range un.obs {
			if !lc.stubbable(i) {
				continue
			}
			ob, callID := observation(msgs, un, i)
			opt.Handle = c.handle(callID, ob.Output)
			opt.MaxTokens = lc.limit(i)
			// Text only: a picture's content is its placeholder, the same
			// for any two.
			opt.Same = ""
			if msgs[i].MediaTokens == 0 && !chat.HasPlaceholder(ob.Output) {
				key := call{ob.Tool, ob.Arguments, ob.Output} // no copy of the output
				if opt.Same = same[key]; opt.Same == "" {
					same[key] = opt.Handle
				}
			}
			st := c.stub(ob, opt)
			e.rewritten[i] = st
			e.stubbed++
			add(known, st)
		}
	}
	if len(lines) > maxLines {
		n := len(lines) - maxLines
		lines = append([]string{countLine(handles[:n], loopMaxHandles(maxLines))}, lines[n:]...)
	}
	if len(lines) > 0 {
		e.memory = LoopPreamble + strings.Join(lines, "\n")
	}
	return e
}

// droppedLines returns the memory lines of a dropped exchange and their
// handles: one per observation (handle, call, outcome: dropLine), or one
// for the assistant turn when it had none (its handle "").
func (c *Compressor) droppedLines(msgs []swc.Message, un *loopUnit) (lines, handles []string) {
	for _, i := range un.obs {
		ob, callID := observation(msgs, un, i)
		h := c.handle(callID, ob.Output)
		lines, handles = append(lines, c.dropLineOf(ob, h)), append(handles, h)
	}
	if len(lines) == 0 {
		a := strings.Join(strings.Fields(msgs[un.msgs[0]].Content), " ")
		lines, handles = append(lines, tokens.Truncate("[assistant turn: "+a, loopLineTokens-2)+"]"), append(handles, "")
	}
	return lines, handles
}

// countLine is the memory's line for the n earliest dropped calls of a
// loop, whose own lines it leaves out: how many, and the handles of the
// latest max of them (swc_recall gets any of them back by its handle).
func countLine(handles []string, max int) string {
	var hs []string
	for _, h := range handles {
		if h != "" {
			hs = append(hs, h)
		}
	}
	line := fmt.Sprintf("[… %d earlier calls left out", len(handles))
	switch {
	case len(hs) == 0:
	case len(hs) <= max:
		line += "; their handles: " + strings.Join(hs, " ")
	default:
		line += fmt.Sprintf("; the latest %d's handles: %s", max, strings.Join(hs[len(hs)-max:], " "))
	}
	return line + "]"
}

// dropLine is the line of a dropped call: "[swc:HANDLE call → outcome]",
// the outcome what observe.Brief says of the output (exit status, test
// summary, line count, then one thing the output held or the call
// wrote), the line at most loopLineTokens tokens.
func (c *Compressor) dropLine(ob observe.Observation, handle string) string {
	head := "[swc:" + handle + " " + callSummary(ob.Tool, ob.Arguments) + " → "
	line := head + observe.Brief(ob, dropLineBytes-len(head)) + "]"
	if c.counter.Count(line) > loopLineTokens { // counted once: dropLineOf remembers the line
		line = tokens.Truncate(line, loopLineTokens-2) + "…]"
	}
	return line
}

// dropLineBytes is about the bytes of loopLineTokens tokens of a dropped
// call's line (names and paths: 3.5 bytes a token).
const dropLineBytes = loopLineTokens * 7 / 2

// observation returns observation i of unit un with its call, and the id
// of the call it answers ("" for a text-acting agent's).
func observation(msgs []swc.Message, un *loopUnit, i int) (observe.Observation, string) {
	m, a := &msgs[i], &msgs[un.msgs[0]]
	ob := observe.Observation{Output: m.Content}
	if m.Role != swc.RoleTool {
		ob.Arguments = command(a.Content)
		return ob, ""
	}
	ob.IsError = strings.HasPrefix(m.Content, "[error] ") // chat's mark of Anthropic's is_error
	for _, tc := range a.ToolCalls {
		if tc.ID == m.ToolCallID {
			ob.Tool, ob.Arguments = tc.Name, tc.Arguments
			break
		}
	}
	return ob, m.ToolCallID
}

// command returns the command of a text-acting agent's turn: the tool
// call in XML tags its text ends with, as a line (xmlCommand), or else
// its last fenced code block ("" when it has none), trimmed. A block is what the
// expression (?s)```[a-zA-Z]*\n(.*?)``` matches, the blocks found left
// to right without overlapping (TestCommandMatchesExpression); a scan
// rather than the expression, whose backtracking cost a text agent's new
// request about a millisecond.
func command(text string) string {
	if cmd := xmlCommand(text); cmd != "" {
		return cmd
	}
	body, found := "", false
	for i := 0; ; {
		k := strings.Index(text[i:], "```")
		if k < 0 {
			break
		}
		p := i + k // a block may open here
		j := p + 3
		for j < len(text) && isASCIILetter(text[j]) {
			j++
		}
		if j < len(text) && text[j] == '\n' {
			if e := strings.Index(text[j+1:], "```"); e >= 0 {
				body, found = text[j+1:j+1+e], true
				i = j + 1 + e + 3
				continue
			}
		}
		i = p + 1
	}
	if !found {
		return ""
	}
	return strings.TrimSpace(body)
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// looksAt matches the calls that read, edit or search files: their
// arguments name what the loop is working on.
var looksAt = regexp.MustCompile(`(?i)\b(read|view|edit|str_replace|replace|write|create|grep|rg|search|find|open|cat|sed|head|tail|nl|patch|apply_patch)\b`)

// looksAtWords are looksAt's words.
var looksAtWords = map[string]bool{
	"read": true, "view": true, "edit": true, "str_replace": true, "replace": true, "write": true,
	"create": true, "grep": true, "rg": true, "search": true, "find": true, "open": true, "cat": true,
	"sed": true, "head": true, "tail": true, "nl": true, "patch": true, "apply_patch": true,
}

// looksAtMatch returns looksAt.MatchString(s): of an ASCII text, whether
// one of its words (runs of letters, digits and underscores) is one of
// looksAtWords in any case; of another, the expression's answer (its case
// folding takes "ſ" for "s" and "K" for "k"). TestLooksAtMatchesExpression.
func looksAtMatch(s string) bool {
	var buf [len("apply_patch")]byte
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			return looksAt.MatchString(s)
		}
		if !isWordByte(c) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		// A whole word matches whatever is around it: \b is a boundary
		// of ASCII word characters.
		if w := j - i; w >= 2 && w <= len(buf) {
			for k := range w {
				c := s[i+k]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf[k] = c
			}
			if looksAtWords[string(buf[:w])] {
				return true
			}
		}
		i = j
	}
	return false
}

func isWordByte(c byte) bool { return isASCIILetter(c) || '0' <= c && c <= '9' || c == '_' }

// loopSeeds seed loopKey's hashes: a memo's key needs to name its value
// in this process only, so the seeds are random.
var loopSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// loopKey names the messages idx of msgs with a prefix of settings: the
// sha256 of each field's two 64-bit maphashes (the fast hash of the
// runtime's maps, 128 bits a field) rather than of the fields' bytes,
// which would cost a request of a long loop about a millisecond more.
func loopKey(msgs []swc.Message, idx []int, settings string) [32]byte {
	h := sha256.New()
	h.Write([]byte(settings))
	var buf [16]byte
	str := func(s string) {
		binary.LittleEndian.PutUint64(buf[:8], maphash.String(loopSeeds[0], s))
		binary.LittleEndian.PutUint64(buf[8:], maphash.String(loopSeeds[1], s))
		h.Write(buf[:])
	}
	num := func(v int64) {
		binary.LittleEndian.PutUint64(buf[:8], uint64(v))
		h.Write(buf[:8])
	}
	for _, i := range idx {
		m := &msgs[i]
		num(int64(i))
		str(string(m.Role))
		str(m.Name)
		str(m.Content)
		str(m.ToolCallID)
		str(m.ID)
		str(m.Session)
		num(m.Time.UnixNano())
		num(int64(len(m.ToolCalls)))
		for _, tc := range m.ToolCalls {
			str(tc.ID)
			str(tc.Name)
			str(tc.Arguments)
		}
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}
