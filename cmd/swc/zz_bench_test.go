package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/memory"
)

func BenchmarkZZAgent(b *testing.B) {
	o := memory.DefaultOptions()
	o.Budget = 3000
	c, _ := memory.New(o)
	base := proxyHistory(400, 7)
	msgs := append([]swc.Message(nil), base...)
	i := 0
	for b.Loop() {
		msgs = append(msgs, swc.Message{Role: swc.RoleUser, Content: fmt.Sprintf("Question %d from agent 7: what did I say about the Atlas budget?", i)})
		if _, err := c.Compress(context.Background(), msgs); err != nil {
			b.Fatal(err)
		}
		if i++; i%50 == 0 {
			msgs = append([]swc.Message(nil), base...)
		}
	}
}
