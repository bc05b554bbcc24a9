package mcp_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mcp"
)

// BenchmarkSearch: one search across a tenant's 20 conversations of 1,000
// messages each (DefaultMaxScan, 20,000 messages, read and ranked whole).
//
//	go test ./mcp -run - -bench Search -benchtime 3x
func BenchmarkSearch(b *testing.B) {
	s := backends[0].open(b)
	ctx := context.Background()
	tn, err := s.CreateTenant(ctx, "acme")
	if err != nil {
		b.Fatal(err)
	}
	topics := []string{
		"I adopted a dog named Rex from the shelter on Saturday.",
		"My sister Ana moved to Lisbon in 2022 and works as a nurse.",
		"We planned a hiking trip to Yosemite for next month.",
		"I finished reading Dune last week and loved the desert scenes.",
		"The marathon in Boston is on 21 April; I trained for 16 weeks.",
	}
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for c := range 20 {
		var msgs []swc.Message
		for i := range 1000 {
			msgs = append(msgs, swc.Message{Role: swc.RoleUser, Name: "Maya",
				Content: fmt.Sprintf("%s (note %d of conversation %d)", topics[(i+c)%len(topics)], i, c), Time: t0.Add(time.Duration(c*1000+i) * time.Minute)})
		}
		if _, err := s.AppendMessages(ctx, tn.ID, fmt.Sprintf("conv-%d", c), msgs, swc.AppendOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	m := mcp.New(s)
	cs := connect(b, m, tn.ID)
	b.ResetTimer()
	for b.Loop() {
		var out mcp.SearchOutput
		mustCall(b, cs, "search", map[string]any{"query": "when did Ana move to Lisbon?"}, &out)
		if out.Messages != 20000 || len(out.Passages) != mcp.DefaultLimit {
			b.Fatalf("%+v", out.Messages)
		}
	}
}
