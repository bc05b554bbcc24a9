package chat

import (
	"bytes"
	"unicode/utf8"
)

// The member names the fast path knows, matched as encoding/json matches
// them to struct fields.

// Field bits, to refuse duplicates (the general parser keeps the last).
const (
	bRole = 1 << iota
	bContent
	bName
	bToolCalls
	bToolCallID
	bRefusal
	bSpeaker
	bID
	bTimestamp
	bCreatedAt
	bSession
	bType
	bText
	bInput
	bToolUseID
	bIsError
	bFunction
	bArguments
	bThinking
)

// nameBit returns the bit of a known name, or 0.
func nameBit(name string) int {
	switch name {
	case "role":
		return bRole
	case "content":
		return bContent
	case "name":
		return bName
	case "tool_calls":
		return bToolCalls
	case "tool_call_id":
		return bToolCallID
	case "refusal":
		return bRefusal
	case "speaker":
		return bSpeaker
	case "id":
		return bID
	case "timestamp":
		return bTimestamp
	case "created_at":
		return bCreatedAt
	case "session":
		return bSession
	case "type":
		return bType
	case "text":
		return bText
	case "input":
		return bInput
	case "tool_use_id":
		return bToolUseID
	case "is_error":
		return bIsError
	case "function":
		return bFunction
	case "arguments":
		return bArguments
	case "thinking":
		return bThinking
	}
	return 0
}

// A fieldSet is the JSON names of a struct's fields and their bits.
type fieldSet struct {
	mask  int
	names []string
}

// fields returns the fieldSet of names, each known to nameBit.
func fields(names ...string) fieldSet {
	fs := fieldSet{names: names}
	for _, n := range names {
		fs.mask |= nameBit(n)
	}
	return fs
}

var (
	oaFields = fields("role", "content", "name", "tool_calls", "tool_call_id", "refusal", "speaker",
		"id", "timestamp", "created_at", "session")
	anFields    = fields("role", "content", "id", "timestamp", "created_at", "session")
	partFields  = fields("type", "text", "refusal")
	callFields  = fields("id", "type", "function")
	funcFields  = fields("name", "arguments")
	blockFields = fields("type", "text", "id", "name", "input", "tool_use_id", "content", "is_error", "thinking")
)

// field returns the bit of the name n among fs, or 0 for a name
// encoding/json would not match to any of them. ok is false for a
// duplicate or a name matching only case-insensitively (encoding/json
// matches those too): the general parser reads them. A name is decoded
// only when it is none of fs as it stands.
func (p *fast) field(n tok, fs fieldSet, seen *int) (bit int, ok bool) {
	key := p.b[n.a:n.e]
	if bit := nameBit(string(key)) & fs.mask; bit != 0 { // as it stands: no escapes
		return use(bit, seen)
	}
	if p.esc(n) {
		if key, ok = p.key(n); !ok {
			return 0, false
		}
		if bit := nameBit(string(key)) & fs.mask; bit != 0 {
			return use(bit, seen)
		}
	}
	for _, name := range fs.names {
		if equalFold(key, name) {
			return 0, false
		}
	}
	return 0, true
}

// use adds bit to seen and returns it, or fails if seen has it already.
func use(bit int, seen *int) (int, bool) {
	if *seen&bit != 0 {
		return 0, false
	}
	*seen |= bit
	return bit, true
}

// equalFold is bytes.EqualFold for a string, without converting it.
func equalFold(b []byte, s string) bool {
	for len(b) > 0 && len(s) > 0 {
		if b[0] < utf8.RuneSelf && s[0] < utf8.RuneSelf {
			x, y := b[0]|0x20, s[0]|0x20
			if x != y || x < 'a' || x > 'z' {
				if b[0] != s[0] {
					return false
				}
			}
			b, s = b[1:], s[1:]
			continue
		}
		return bytes.EqualFold(b, []byte(s))
	}
	return len(b) == len(s)
}
