package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/locomo"
)

// inputFlags select chat messages as a command's input.
type inputFlags struct {
	path, format string
	model        string
	gap          time.Duration
	turns        int
}

func addInputFlags(fs *flag.FlagSet) *inputFlags {
	f := &inputFlags{}
	fs.StringVar(&f.path, "input", "", "chat messages to read instead of --data: FILE, or - for stdin")
	fs.StringVar(&f.format, "format", "auto", "format of --input: auto, openai, anthropic, gemini, responses, interactions, jsonl or locomo")
	fs.StringVar(&f.model, "model", "", "with --input of a Gemini request body, the model its URL names (the body does not): its media count as that model counts them (gemini-2.5-pro: images by 768-pixel tiles); default: as Gemini 3 counts them")
	fs.DurationVar(&f.gap, "session-gap", chat.DefaultSessionGap, "with --input: silence that starts a new session (messages with timestamps)")
	fs.IntVar(&f.turns, "session-turns", chat.DefaultSessionTurns, "with --input: messages per session when messages have neither session ids nor timestamps")
	return f
}

// check returns a usage error for flags that contradict each other.
func (f *inputFlags) check(data string) error {
	if f.path != "" && data != "" {
		return usagef("give --data or --input, not both")
	}
	if _, err := chat.ParseFormat(f.format); err != nil {
		return usagef("--format: %s", swc.ErrorMessage(err))
	}
	if f.gap <= 0 || f.turns <= 0 {
		return usagef("--session-gap and --session-turns must be positive")
	}
	return nil
}

// chatInput is --input read: LoCoMo conversations, or chat messages.
type chatInput struct {
	name  string
	convs []*swc.Conversation // locomo
	msgs  *chat.Input         // openai, anthropic, jsonl, request bodies
	data  []byte              // the input as read
}

// read reads and parses --input. Errors name the file.
func (f *inputFlags) read(env *Env) (*chatInput, error) {
	var data []byte
	var err error
	name := f.path
	if f.path == "-" {
		name = "stdin"
		data, err = io.ReadAll(env.Stdin)
	} else {
		data, err = os.ReadFile(f.path)
	}
	if err != nil {
		if os.IsNotExist(err) {
			return nil, swc.Errorf(swc.ENOTFOUND, "--input %s: no such file", f.path)
		}
		return nil, fmt.Errorf("--input %s: %w", name, err)
	}
	format, _ := chat.ParseFormat(f.format)
	detected := format == chat.Auto
	if detected {
		if format, err = chat.Detect(data); err != nil {
			return nil, swc.Errorf(swc.EINVALID, "%s: %s", name, swc.ErrorMessage(err))
		}
	}
	in := &chatInput{name: name, data: data}
	if format == chat.LoCoMo {
		convs, warns, err := locomo.Parse(data, name)
		if err != nil {
			return nil, err
		}
		for _, w := range warns {
			fmt.Fprintf(env.Stderr, "swc: warning: %s\n", w)
		}
		in.convs = convs
		return in, nil
	}
	if in.msgs, err = chat.ParseOwnedModel(data, format, f.model); err != nil { // data is read for this call alone
		hint := ""
		if detected {
			hint = fmt.Sprintf(" (read as %s, told by its shape; --format names the format when that is wrong)", format)
		}
		return nil, swc.Errorf(swc.ErrorCode(err), "%s: %s%s", name, swc.ErrorMessage(err), hint)
	}
	var prev string
	if format == chat.Interactions && json.Unmarshal(in.msgs.Body["previous_interaction_id"], &prev) == nil && prev != "" {
		return nil, swc.Errorf(swc.EINVALID, "%s: previous_interaction_id: the history is stored at the provider, not in input, so there is nothing to compress (the proxy passes such requests through)", name)
	}
	for _, w := range in.msgs.Warnings {
		fmt.Fprintf(env.Stderr, "swc: warning: %s: %s\n", name, w)
	}
	return in, nil
}

// conversation groups chat messages into one conversation (system and
// developer messages left out), warning on stderr about what cannot be
// anchored.
func (f *inputFlags) conversation(env *Env, in *chatInput) *swc.Conversation {
	var msgs []swc.Message
	var idx []int
	for i, m := range in.msgs.Messages {
		if !chat.IsInstruction(m) {
			msgs = append(msgs, m)
			idx = append(idx, i)
		}
	}
	id := strings.TrimSuffix(filepath.Base(in.name), filepath.Ext(in.name))
	g := chat.Sessionize(msgs, chat.SessionOptions{Gap: f.gap, Turns: f.turns, Index: idx, ID: id})
	for _, w := range g.Warnings {
		fmt.Fprintf(env.Stderr, "swc: warning: %s: %s\n", in.name, w)
	}
	return g.Conversation
}

// loadData returns the conversations of --input when given, else of
// --data (or the built-in sample).
func loadData(env *Env, data string, f *inputFlags) ([]*swc.Conversation, error) {
	all, _, err := loadPicked(env, &dataFlags{path: data}, f, "")
	return all, err
}
