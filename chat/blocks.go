package chat

import (
	"bytes"
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"
)

// WithoutToolResults returns an Anthropic message (a Raw element) with the
// tool_result blocks of its content removed and every other byte as it
// came: the rest of the message kept when the calls its results answer
// went into the memory, its other blocks (text with cache_control marks,
// images, documents, blocks of any type) untouched. ok is false when the
// message has no content list, no tool_result block, or nothing but
// tool_result blocks (nothing to keep).
func WithoutToolResults(raw json.RawMessage) (out json.RawMessage, ok bool) {
	return keepBlocks(raw, false)
}

// OnlyToolResults returns an Anthropic message (a Raw element) with its
// content's tool_result blocks alone, each byte for byte: the results
// kept, what came beside them (a text the client added) gone into the
// memory. ok is false when the message has no content list, no
// tool_result block, or nothing else.
func OnlyToolResults(raw json.RawMessage) (out json.RawMessage, ok bool) {
	return keepBlocks(raw, true)
}

// keepBlocks returns raw with the blocks of its content list that are
// tool_result blocks (results) or the others (!results) alone, every
// other byte as it came; ok is false when either side is empty.
func keepBlocks(raw json.RawMessage, results bool) (out json.RawMessage, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(raw), fastOptions)
	if t, err := dec.ReadToken(); err != nil || t.Kind() != '{' {
		return nil, false
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		if name.String() != "content" || dec.PeekKind() != '[' {
			if _, err := dec.ReadValue(); err != nil {
				return nil, false
			}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return nil, false
		}
		end := int(dec.InputOffset())
		start := end - len(v)
		kept, dropped, ok := splitBlocks(raw[start:end])
		if !ok || len(dropped) == 0 || len(kept) == 0 {
			return nil, false
		}
		if results {
			kept = dropped
		}
		out = make([]byte, 0, len(raw))
		out = append(out, raw[:start]...)
		out = append(out, '[')
		out = append(out, bytes.Join(kept, []byte{','})...)
		out = append(out, ']')
		return append(out, raw[end:]...), true
	}
	return nil, false
}

// splitBlocks returns the elements of a content list that are not
// tool_result blocks and those that are (slices of list).
func splitBlocks(list []byte) (kept, results [][]byte, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(list), fastOptions)
	if _, err := dec.ReadToken(); err != nil {
		return nil, nil, false
	}
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return nil, nil, false
		}
		end := int(dec.InputOffset())
		elem := list[end-len(v) : end]
		var head struct {
			Type string `json:"type"`
		}
		if elem[0] == '{' && json.Unmarshal(elem, &head) == nil && head.Type == "tool_result" {
			results = append(results, elem)
			continue
		}
		kept = append(kept, elem)
	}
	return kept, results, true
}
