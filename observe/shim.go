// Package observe writes stand-ins for the old observations of agent tool
// loops.
//
// This file is a placeholder written on branch core so that memory/
// compiles before the observe branch is merged: it has the contract's
// signatures with small working bodies. The observe engineer's files
// replace it: delete this file at merge.
package observe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/swcmem/swc/tokens"
)

// Observation is one tool output (or the observation message of an agent
// that acts in text), with its call.
type Observation struct {
	Tool      string // tool name; "" when the agent acts in text
	Arguments string // the call's arguments as JSON text, or the command text a text-acting agent ran
	Output    string // the output as the provider carried it
	IsError   bool   // the provider marked it as an error (Anthropic is_error)
}

// StubOptions say how Stub writes a stand-in.
type StubOptions struct {
	Handle    string
	MaxTokens int
	Known     func(id string) bool
	Focus     func(id string) bool
}

// DefaultStubTokens is the default of StubOptions.MaxTokens.
const DefaultStubTokens = 160

// Stub returns the text that stands in for an old observation: a first
// line naming the handle, the call and the outcome, then the output's
// lines holding errors or identifiers not Known (Focus first), in order,
// elided runs marked; at most MaxTokens tokens.
func Stub(o Observation, opt StubOptions) string {
	limit := opt.MaxTokens
	if limit <= 0 {
		limit = DefaultStubTokens
	}
	call := o.Tool
	args := strings.Join(strings.Fields(o.Arguments), " ")
	if len(args) > 80 {
		args = args[:77] + "…"
	}
	if call == "" {
		call = args
	} else {
		call += "(" + args + ")"
	}
	lines := strings.Split(o.Output, "\n")
	outcome := fmt.Sprintf("%d lines", len(lines))
	if o.IsError {
		outcome = "error, " + outcome
	}
	head := fmt.Sprintf("[swc:%s %s → %s]", opt.Handle, call, outcome)
	head = tokens.Truncate(head, limit/2)
	out := []string{head}
	used := tokens.Count(head)
	skipped := false
	for _, l := range lines {
		if !useful(l, opt) {
			skipped = true
			continue
		}
		n := tokens.Count(l) + 2
		if used+n+4 > limit {
			skipped = true
			break
		}
		if skipped {
			out = append(out, "[…]")
			used += 2
			skipped = false
		}
		out = append(out, l)
		used += n
	}
	if skipped {
		out = append(out, "[…]")
	}
	return strings.Join(out, "\n")
}

var errLine = regexp.MustCompile(`(?i)error|fail|exception|traceback|panic`)

func useful(line string, opt StubOptions) bool {
	if strings.TrimSpace(line) == "" {
		return false
	}
	if errLine.MatchString(line) {
		return true
	}
	for _, id := range Identifiers(line) {
		if opt.Focus != nil && opt.Focus(id) {
			return true
		}
		if opt.Known == nil || !opt.Known(id) {
			return true
		}
	}
	return false
}

// Handle returns "h" + 10 lowercase hex characters of
// sha256(callID + "\x00" + output).
func Handle(callID, output string) string {
	sum := sha256.Sum256([]byte(callID + "\x00" + output))
	return "h" + hex.EncodeToString(sum[:5])
}

var obsShape = regexp.MustCompile(`(?s)^\s*(<returncode>|<output>|OBSERVATION:|Observation:|Exit code:|exit code:)`)

// IsObservation reports whether a user message's text has the shape of
// output returned to an agent that acts in text.
func IsObservation(text string) bool { return obsShape.MatchString(text) }

var identRe = regexp.MustCompile(`(?:\.?/)?[A-Za-z_][\w.-]*(?:/[\w.-]+)+(?::\d+)?|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[a-z]+_[a-z0-9_]+|[a-z]+[A-Z]\w*|\d{3,}`)

// Identifiers returns the distinct identifiers of text in order of first
// appearance.
func Identifiers(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range identRe.FindAllString(text, -1) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}
