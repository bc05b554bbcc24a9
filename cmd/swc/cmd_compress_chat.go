package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/tokens"
)

// chatFlags are compress's and inspect's settings for chat messages.
type chatFlags struct {
	in         *inputFlags
	keepRecent int
	tokenizer  string
	output     string
	compaction string
	holdBudget bool
}

func addChatFlags(fs *flag.FlagSet) *chatFlags {
	f := &chatFlags{in: addInputFlags(fs)}
	fs.IntVar(&f.keepRecent, "keep-recent", memory.DefaultKeepRecent, "chat: the latest messages kept unchanged (a tool call keeps its results)")
	fs.StringVar(&f.tokenizer, "tokenizer", string(tokens.Cl100k), "chat: tokenizer the budget counts with: cl100k_base or o200k_base")
	fs.StringVar(&f.compaction, "compaction", memory.Replan, "chat: replan (the memory takes all the room the kept messages leave) or epoch (what the proxy sends: the memory at --budget's epoch boundary, the messages after it verbatim)")
	fs.BoolVar(&f.holdBudget, "hold-budget", false, holdBudgetHelp)
	fs.StringVar(&f.output, "output-format", "text", "text, openai (a messages array), anthropic ({system, messages}), json (messages with the per-session report) or request (--input's request body compressed in its own format, as the proxy writes it); openai/anthropic/json compress as chat messages")
	return f
}

// check validates the flags; it reports whether the chat path applies.
func (f *chatFlags) check(data string, upto int) (bool, error) {
	if err := f.in.check(data); err != nil {
		return false, err
	}
	switch f.output {
	case "text", "openai", "anthropic", "json":
	case "request":
		if f.in.path == "" {
			return false, usagef("--output-format request writes a request body back compressed: give the body with --input")
		}
	default:
		return false, usagef("--output-format %q: want text, openai, anthropic, json or request", f.output)
	}
	if _, err := tokens.Get(f.tokenizer); err != nil {
		return false, usagef("--tokenizer: %s", swc.ErrorMessage(err))
	}
	if f.keepRecent < 0 {
		return false, usagef("--keep-recent must not be negative (got %d)", f.keepRecent)
	}
	if f.compaction != memory.Replan && f.compaction != memory.Epoch {
		return false, usagef("--compaction %q: want replan or epoch", f.compaction)
	}
	isChat := f.in.path != "" || f.output != "text"
	if isChat && upto > 0 {
		return false, usagef("--upto applies to LoCoMo --data only, not to chat messages")
	}
	return isChat, nil
}

// messages returns the chat messages to compress: --input's, or the
// picked LoCoMo conversation's (--input in LoCoMo format, --data, or the
// built-in sample) converted with chat.FromConversation.
func (c *compressCmd) messages(env *Env) (string, []swc.Message, error) {
	f := c.chat.in
	var convs []*swc.Conversation
	name := "sample"
	if f.path != "" {
		in, err := f.read(env)
		if err != nil {
			return "", nil, err
		}
		if in.msgs != nil {
			c.input, c.body = in.msgs, bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(in.data), []byte("\xef\xbb\xbf")))
			return in.name, in.msgs.Messages, nil
		}
		convs, name = in.convs, in.name
	}
	if c.conv == "" {
		c.conv = "0"
	}
	var picked []*swc.Conversation
	var err error
	if f.path != "" {
		picked, err = pickConversations(convs, c.conv)
	} else {
		_, picked, err = loadPicked(env, c.data, nil, c.conv)
		if c.data.path != "" {
			name = c.data.path
		}
	}
	if err != nil {
		return "", nil, err
	}
	if len(picked) != 1 {
		return "", nil, usagef("--conversation names one conversation")
	}
	return name + ":" + picked[0].ID, chat.FromConversation(picked[0]), nil
}

// runChat compresses chat messages with the memory package.
func (c *compressCmd) runChat(ctx context.Context, env *Env) (*memory.Result, error) {
	eng, err := openEngines(ctx, env, c.eng)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	name, msgs, err := c.messages(env)
	if err != nil {
		return nil, err
	}
	alignUser := c.chat.output == "anthropic"
	if c.chat.output == "request" {
		codec, ok := chat.CodecOf(formatOf(c.input))
		if !ok || c.input.Body == nil {
			return nil, usagef("--output-format request: %s is not a request body (a Chat Completions, Messages, Gemini, Responses or Interactions request): use text, openai, anthropic or json", name)
		}
		alignUser = codec.AlignUser()
	}
	comp, err := memory.New(memory.Options{
		Strategy: c.strategy, Budget: c.eng.budget, Tokenizer: c.chat.tokenizer, Compaction: c.chat.compaction,
		KeepRecent: c.chat.keepRecent, AlignUser: alignUser, HoldBudget: c.chat.holdBudget,
		SessionGap: c.chat.in.gap, SessionTurns: c.chat.in.turns,
		Gister: eng.gister, Embedder: eng.embedder, Config: eng.cfg, Schedule: eng.schedule,
	})
	if err != nil {
		return nil, usagef("%s", swc.ErrorMessage(err))
	}
	if c.chat.holdBudget && c.input != nil && c.input.Body != nil {
		if tools := comp.ToolTokens(c.input.Body["tools"]); tools > 0 {
			comp = comp.Held(tools)
			fmt.Fprintf(env.Stderr, "swc: %s: --hold-budget: the tool definitions take %d tokens of the budget, the messages get %d\n", name, tools, comp.Options().Budget)
		}
	}
	res, err := comp.Compress(ctx, msgs)
	eng.printUsage(env.Stderr)
	if err != nil {
		return nil, swc.Errorf(swc.ErrorCode(err), "%s: %s", name, swc.ErrorMessage(err))
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "swc: warning: %s: %s\n", name, w)
	}
	if res.Fallback != "" {
		fmt.Fprintf(env.Stderr, "swc: warning: compressed with the offline engines: %s\n", res.Fallback)
	}
	if res.OverBudget > 0 {
		fmt.Fprintf(env.Stderr, "swc: warning: %s: %d tokens over the budget of %d: the messages no compression may remove (instructions, task, user texts, the last exchange) exceed it\n", name, res.OverBudget, res.Budget)
	}
	if c.chat.holdBudget && len(res.Truncated) > 0 && len(res.Rewritten) > 0 {
		fmt.Fprintf(env.Stderr, "swc: %s: --hold-budget cut the newest tool outputs %v to fit (each keeps its handle)\n", name, res.Truncated)
	}
	kept := len(res.Messages) - len(res.Rewritten)
	if res.Memory != "" {
		kept--
	}
	what := fmt.Sprintf("%d sessions by %s", len(res.Sessions), res.Rule)
	if res.Fits {
		what = "already within the budget, unchanged"
	}
	if len(res.Rewritten) > 0 || len(res.Calls) > 0 || strings.HasPrefix(res.Memory, memory.LoopPreamble) {
		clipped := 0
		for i := range res.Rewritten {
			if msgs[i].Role == swc.RoleAssistant {
				clipped++
			}
		}
		what = fmt.Sprintf("a tool loop: %d old observations stubbed in place", len(res.Rewritten)-clipped)
		if clipped > 0 {
			what += fmt.Sprintf(", %d old turns' prose clipped", clipped)
		}
		if len(res.Calls) > 0 {
			what += fmt.Sprintf(", %d old turns' long call arguments clipped", len(res.Calls))
		}
	}
	fmt.Fprintf(env.Stderr, "swc: %s: %d messages, %d → %d tokens (budget %d, %s); %s; %d messages kept as they were\n",
		res.Strategy, len(msgs), res.TokensBefore, res.Tokens, res.Budget, res.Tokenizer, what, kept)
	return res, nil
}

// formatOf is in's format, "" for none (LoCoMo conversations).
func formatOf(in *chat.Input) chat.Format {
	if in == nil {
		return ""
	}
	return in.Format
}

// writeRequest prints in's request body with res's messages spliced in
// (memory.SpliceRequest, as the proxy writes it), or as it came when it
// fits the budget.
func writeRequest(w io.Writer, in *chat.Input, body []byte, res *memory.Result) error {
	if !res.Fits {
		var err error
		if body, err = memory.SpliceRequest(in, res); err != nil {
			return err
		}
	}
	if _, err := w.Write(body); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// writeChat prints res in the chosen output format.
func writeChat(w io.Writer, res *memory.Result, format string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // "&" stays "&" in the history text
	switch format {
	case "openai":
		// The memory where a request holds it (chat.Splice's place):
		// never a system message after another message.
		msgs, err := chat.OpenAIRequestMessages(res.Messages, slices.Index(res.Source, -1))
		if err != nil {
			return err
		}
		return enc.Encode(msgs)
	case "anthropic":
		return enc.Encode(chat.ToAnthropic(res.Messages))
	case "json":
		return enc.Encode(res)
	}
	var b strings.Builder
	for i, m := range res.Messages {
		if i > 0 {
			b.WriteString("\n")
		}
		label := string(m.Role)
		switch {
		case res.Source[i] < 0:
			label += ": memory"
		case m.Name != "":
			label += ": " + m.Name
		case m.ToolCallID != "":
			label += ": result of " + m.ToolCallID
		}
		fmt.Fprintf(&b, "[%s]\n", label)
		if m.Content != "" {
			b.WriteString(strings.TrimRight(m.Content, "\n"))
			b.WriteString("\n")
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "→ %s %s(%s)\n", tc.ID, tc.Name, tc.Arguments)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// printGrouping writes how the history's messages were grouped into
// sessions (numbered from 1, as every table and context numbers them; the
// message columns are input indexes), and what became of each.
func printGrouping(w io.Writer, res *memory.Result) {
	if res.Fits {
		fmt.Fprintf(w, "%d tokens already within the budget of %d: nothing compressed\n", res.TokensBefore, res.Budget)
		return
	}
	fmt.Fprintf(w, "history: %d sessions by %s; kept unchanged from message %d\n", len(res.Sessions), res.Rule, res.Recent)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "session\tdate\tmessages\tfirst\tlast\tid\taction")
	for _, s := range res.Sessions {
		action := ""
		if res.Context != nil && s.Session < len(res.Context.Chunks) {
			action = string(res.Context.Chunks[s.Session].Action)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%s\t%s\n", s.Session+1, s.Date, s.Messages, s.First, s.Last, s.ID, action)
	}
	tw.Flush()
	fmt.Fprintln(w)
}
