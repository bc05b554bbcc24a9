package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// BenchmarkProxyPath times the steps of one proxied request on LoCoMo
// conv-26 as an OpenAI Chat Completions body (419 messages): parsing the
// body (and the same conversation as an Anthropic Messages body),
// compressing the same history again (a client re-sending it), an agent's
// growing history (each request one message longer than the
// last, so no two histories are the same), and splicing the result back.
func BenchmarkProxyPath(b *testing.B) {
	convs := loadLoCoMo(b)
	msgs := chat.FromConversation(convs[0])
	body := func(ms []swc.Message) []byte {
		raw, err := json.Marshal(chat.OpenAIMessages(ms))
		if err != nil {
			b.Fatal(err)
		}
		return fmt.Appendf(nil, `{"model":"gpt-4o","temperature":0.2,"messages":%s}`, raw)
	}
	full := body(msgs)
	o := DefaultOptions()
	b.Run("parse", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			if _, err := chat.Parse(full, chat.OpenAI); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The same messages as an Anthropic Messages body (ToAnthropic merges
	// adjacent turns of one speaker into one message of text blocks).
	areq := chat.ToAnthropic(msgs)
	araw, err := json.Marshal(areq.Messages)
	if err != nil {
		b.Fatal(err)
	}
	afull := fmt.Appendf(nil, `{"model":"claude-haiku-4-5","max_tokens":1024,"messages":%s}`, araw)
	b.Run("parse-anthropic", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			if _, err := chat.Parse(afull, chat.Anthropic); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compress-same", func(b *testing.B) {
		c, _ := New(o)
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			if _, err := c.Compress(context.Background(), msgs); err != nil {
				b.Fatal(err)
			}
		}
	})
	// An agent's history grows from 300 messages to all 419, one message
	// per request; then a new Compressor starts over (nothing remembered),
	// so no history is compressed twice by one Compressor.
	b.Run("compress-growing", func(b *testing.B) {
		c, _ := New(o)
		n := 300
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			if _, err := c.Compress(context.Background(), msgs[:n]); err != nil {
				b.Fatal(err)
			}
			if n++; n > len(msgs) {
				n = 300
				c, _ = New(o)
			}
		}
	})
	in, err := chat.Parse(full, chat.OpenAI)
	if err != nil {
		b.Fatal(err)
	}
	c, _ := New(o)
	res, err := c.Compress(context.Background(), in.Messages)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("splice", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			if _, err := SpliceRequest(in, res); err != nil {
				b.Fatal(err)
			}
		}
	})
}
