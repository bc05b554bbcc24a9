package memory

import (
	"bytes"
	"encoding/json"
)

// ToolTokens returns the tokens of a request's tool definitions (the raw
// value of its "tools" field; 0 for none) with c's tokenizer: their JSON
// text, compacted, counted as text, without the definitions marked
// "defer_loading": true, which the provider keeps out of the context
// until a tool search loads them (upfrontTools). The budget covers them
// only with Options.HoldBudget (Held).
func (c *Compressor) ToolTokens(raw json.RawMessage) int {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "[]" {
		return 0
	}
	text := upfrontTools(raw)
	var buf bytes.Buffer
	if json.Compact(&buf, text) == nil {
		text = buf.Bytes()
	}
	return c.countText(string(text))
}

// Held returns the compressor that compresses a request whose tool
// definitions cost tools tokens (ToolTokens): with Options.HoldBudget,
// one of the budget less those tokens (at least 1), so that the request
// as a whole — definitions, instructions, messages — fits the budget, a
// model's own limit; c itself otherwise.
func (c *Compressor) Held(tools int) *Compressor {
	if !c.opts.HoldBudget || tools <= 0 {
		return c
	}
	cc := *c
	cc.opts.Budget = max(c.opts.Budget-tools, 1)
	return &cc
}

// upfrontTools returns the tools of raw (a "tools" array) without those
// marked "defer_loading": true, as an array; raw itself when none is (or
// it is not an array of objects).
func upfrontTools(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(`"defer_loading"`)) {
		return raw
	}
	var tools []json.RawMessage
	if json.Unmarshal(raw, &tools) != nil {
		return raw
	}
	kept := tools[:0:0]
	for _, t := range tools {
		var d struct {
			DeferLoading bool `json:"defer_loading"`
		}
		if json.Unmarshal(t, &d) == nil && d.DeferLoading {
			continue
		}
		kept = append(kept, t)
	}
	if len(kept) == len(tools) {
		return raw
	}
	// The kept definitions' own bytes, joined (json.Marshal would escape
	// their '<', '>' and '&' and count more tokens than they hold).
	out := []byte{'['}
	for i, t := range kept {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, t...)
	}
	return append(out, ']')
}
