package loadtest

import (
	"context"
	"os"
	"testing"

	"github.com/swcmem/swc/memory"
)

// BenchmarkAgentFirstRequest compresses 400-message agent histories
// (AgentHistory: tool calls, no timestamps) at 4,000 tokens, each history
// one the Compressor has not seen: the work of an agent's first request
// under `swc loadtest-proxy --budget 4000`, where the consolidation of
// the epoch boundary is cold. As in the proxy, one Compressor serves every
// agent and has served one before (the assistant's and the tools'
// messages, alike across agents, are remembered; each agent's own are
// new).
func BenchmarkAgentFirstRequest(b *testing.B) {
	o := memory.DefaultOptions()
	o.Budget = 4000
	c, err := memory.New(o)
	if err != nil {
		b.Fatal(err)
	}
	agent := 1 << 20
	if _, err := c.Compress(context.Background(), AgentHistory(400, agent)); err != nil {
		b.Fatal(err)
	}
	start, _ := ProcessCPU(os.Getpid())
	for b.Loop() {
		agent++
		if _, err := c.Compress(context.Background(), AgentHistory(400, agent)); err != nil {
			b.Fatal(err)
		}
	}
	if end, err := ProcessCPU(os.Getpid()); err == nil && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}
