package http

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
)

// The record of what compression did to each request of a stored
// conversation (swc.CompressionRecord), kept in the store for /ui
// (ui_requests.go): each message kept verbatim, masked, gisted or
// dropped, with its handle.

// previewRunes is how much of a message's first line a record keeps.
const previewRunes = 100

// recordCompression stores what out did to in for conversation conv of
// tenant (stored and prefix modes: the conversation is stored). A failure
// is logged, nothing else: the request went out all the same. The proxy
// calls it after writing the answer (about 1.4 ms on SQLite for a loop of
// 31 messages: BenchmarkRecordCompression in sqlite/).
func (s *Server) recordCompression(ctx context.Context, c *memory.Compressor, p protocol, in *chat.Input, out *proxyOut, budget int, tenant, conv string) {
	if out.res == nil || conv == "" || (out.mode != "stored" && out.mode != "prefix") {
		return
	}
	rec := compressionRecord(c, in, out.res)
	rec.At, rec.Protocol, rec.Mode, rec.Budget = s.now(), p.name, out.mode, budget
	rec.TokensBefore, rec.TokensAfter = out.before, out.after
	// ENOTFOUND: the conversation was deleted meanwhile; nothing to record.
	if err := s.store.RecordCompression(ctx, tenant, conv, rec); err != nil && swc.ErrorCode(err) != swc.ENOTFOUND {
		s.logger().Warn("proxy: record compression", "err", err)
	}
}

// compressionRecord is what res did to each of in's conversation messages
// (instructions are sent as they came and not listed): sent as it came
// (kept), as a stub (masked), or left out — then kept verbatim in the
// memory message, gisted, partly kept or dropped as the memory's report
// of its session says (a tool loop's memory reports no sessions: its
// left-out exchanges are dropped, listed by handle).
func compressionRecord(c *memory.Compressor, in *chat.Input, res *memory.Result) swc.CompressionRecord {
	sent := make(map[int]bool, len(res.Source))
	for _, i := range res.Source {
		if i >= 0 {
			sent[i] = true
		}
	}
	action := map[int]swc.Action{} // session → what the memory did with it
	if res.Context != nil {
		for _, ch := range res.Context.Chunks {
			action[ch.Session] = ch.Action
		}
	}
	sessionOf := map[int]int{} // input index → session
	for _, sp := range res.Sessions {
		for i := sp.First; i <= sp.Last; i++ {
			sessionOf[i] = sp.Session
		}
	}
	var rec swc.CompressionRecord
	chain := ""
	for i, m := range in.Messages {
		if chat.IsInstruction(m) {
			continue
		}
		it := swc.CompressedItem{Index: i, Role: m.Role, Tokens: c.Cost(m), Preview: preview(m)}
		if stored := withInPlace(m, false); !swc.IsInstruction(stored) { // a mid-conversation system message is not stored
			chain = swc.Chain(chain, stored) // as the store chains it
			it.Chain = chain
		}
		if h, ok := observationHandle(in.Messages, i); ok {
			it.Handle = h
		}
		st, masked := res.AsSent(i, m)
		switch {
		case sent[i] && masked && m.Role == swc.RoleAssistant:
			it.Kind, it.Sent = swc.ItemClipped, c.Cost(st)
			if h := memory.HistoryHandle([]swc.Message{m}); strings.Contains(st.Content, "[swc:"+h) || res.Calls[i] != nil {
				it.Handle = h // not an old turn sent whole without its thinking blocks
			}
		case sent[i] && masked:
			it.Kind, it.Sent = swc.ItemMasked, c.Cost(st)
		case sent[i]:
			it.Kind, it.Sent = swc.ItemKept, it.Tokens
		default:
			it.Kind = swc.ItemDropped
			if s, ok := sessionOf[i]; ok {
				switch action[s] {
				case swc.ActionVerbatim:
					it.Kind, it.InMemory = swc.ItemKept, true
				case swc.ActionGist:
					it.Kind = swc.ItemGisted
				case swc.ActionPartial:
					it.Kind = swc.ItemPartial
				}
			}
		}
		rec.Items = append(rec.Items, it)
	}
	if n := len(rec.Items) - swc.CompressionItemsMax; n > 0 {
		rec.Omitted, rec.Items = n, rec.Items[n:]
	}
	return rec
}

func withInPlace(m swc.Message, v bool) swc.Message {
	m.InPlace = v
	return m
}

// preview is the start of m's first non-empty line, or its tool calls
// when it has no text.
func preview(m swc.Message) string {
	text := m.Content
	if strings.TrimSpace(text) == "" && len(m.ToolCalls) > 0 {
		var b strings.Builder
		for k, tc := range m.ToolCalls {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tc.Name + "(" + tc.Arguments + ")")
		}
		text = b.String()
	}
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line != "" {
			text = line
			break
		}
	}
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) > previewRunes {
		r := []rune(text)
		text = string(r[:previewRunes]) + "…"
	}
	return text
}
