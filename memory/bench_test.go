package memory

import (
	"context"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/tokens"
)

// BenchmarkCompress compresses the built-in assistant sample (93
// messages) and LoCoMo conv-26 as chat messages (419 messages, 19
// sessions) with the offline engines at 4,000 tokens, beside tokenising
// the same text once (a yardstick for the compression time).
func BenchmarkCompress(b *testing.B) {
	sample, err := chat.Sample()
	if err != nil {
		b.Fatal(err)
	}
	convs := loadLoCoMo(b)
	for _, tc := range []struct {
		name string
		msgs []swc.Message
	}{
		{"assistant-93", sample},
		{"locomo-" + convs[0].ID, chat.FromConversation(convs[0])},
	} {
		var all strings.Builder
		for _, m := range tc.msgs {
			all.WriteString(m.Content)
			all.WriteByte('\n')
		}
		text := all.String()
		b.Run(tc.name+"/tokenize-once", func(b *testing.B) {
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				tokens.Count(text)
			}
		})
		o := DefaultOptions()
		if tc.name == "assistant-93" {
			o.Budget = 1500
		}
		// warm: one Compressor, as an agent re-sending its history uses it.
		b.Run(tc.name+"/compress", func(b *testing.B) {
			c, _ := New(o)
			defer reportCPU(b, cpuTime())
			for b.Loop() {
				if _, err := c.Compress(context.Background(), tc.msgs); err != nil {
					b.Fatal(err)
				}
			}
		})
		// cold: a new Compressor each time (no gists, anchors or entity
		// counts remembered); also as the proxy compressed before epochs
		// (swc-anchored, re-planned).
		replan := o
		replan.Strategy, replan.Compaction = "swc-anchored", Replan
		for name, o := range map[string]Options{"compress-cold": o, "compress-cold-replan-anchored": replan} {
			b.Run(tc.name+"/"+name, func(b *testing.B) {
				defer reportCPU(b, cpuTime())
				for b.Loop() {
					c, _ := New(o)
					if _, err := c.Compress(context.Background(), tc.msgs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
