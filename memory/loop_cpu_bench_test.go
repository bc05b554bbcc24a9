package memory

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// BenchmarkLoopCPU measures the speed goals of tool loops in the CPU time
// of each request (the process's user and system time around Compress,
// so other processes on the machine do not count), at a 16k budget, in
// both forms of a loop (tools: tool calls and tool results; text: a
// text-acting agent's commands and observation messages):
//
//   - new/100k: a 100k-token loop new to the process — its own seed, so
//     its texts were never counted — compressed by a new Compressor;
//   - next/100k: the next request of a loop the Compressor compressed the
//     request before of: the previous request plus an assistant turn and
//     its outputs. The loops start at 100k tokens and grow a request at a
//     time; past 130k a new loop starts (its first request untimed).
//
// It reports the median and the 99th percentile of the requests' CPU
// times (p50-cpu-ms, p99-cpu-ms; with fewer than 100 requests the p99 is
// the slowest). Run with a fixed count:
//
//	go test ./memory -run '^$' -bench LoopCPU -benchtime 100x -cpu 1
func BenchmarkLoopCPU(b *testing.B) {
	ctx := context.Background()
	o := DefaultOptions()
	o.Budget = 16000
	base := mustNew(b, o)
	for _, text := range []bool{false, true} {
		form := "tools"
		if text {
			form = "text"
		}
		seed := uint64(7000)
		b.Run("new/100k/"+form, func(b *testing.B) {
			var cpu []time.Duration
			for range b.N {
				b.StopTimer()
				seed++
				msgs, at := cpuLoop(b, base, text, seed, 100_000, 130_000)
				req := msgs[:at[0]]
				c := mustNew(b, o)
				// The generator's garbage (megabytes of builder growth per
				// loop, far more than parsing the request body leaves) is
				// collected first, so its collection is not timed as the
				// compressor's.
				runtime.GC()
				b.StartTimer()
				t0 := cpuTime()
				if _, err := c.Compress(ctx, req); err != nil {
					b.Fatal(err)
				}
				cpu = append(cpu, cpuTime()-t0)
			}
			reportPercentiles(b, cpu)
		})
		b.Run("next/100k/"+form, func(b *testing.B) {
			var cpu []time.Duration
			var c *Compressor
			var msgs []swc.Message
			var at []int
			k := 0
			for range b.N {
				if c == nil || k == len(at) {
					b.StopTimer()
					seed++
					msgs, at = cpuLoop(b, base, text, seed, 100_000, 130_000)
					c = mustNew(b, o)
					if _, err := c.Compress(ctx, msgs[:at[0]]); err != nil {
						b.Fatal(err)
					}
					k = 1
					b.StartTimer()
				}
				t0 := cpuTime()
				if _, err := c.Compress(ctx, msgs[:at[k]]); err != nil {
					b.Fatal(err)
				}
				cpu = append(cpu, cpuTime()-t0)
				k++
			}
			reportPercentiles(b, cpu)
		})
	}
}

// cpuLoop returns a generated loop (seeded by seed) and the lengths of
// the requests an agent sent of it of about from to to tokens.
// Its texts are not counted (a request of it is new to the process): the
// sizes are its bytes at the tokens per byte of another loop.
func cpuLoop(b testing.TB, c *Compressor, text bool, seed uint64, from, to int) ([]swc.Message, []int) {
	gen := func(seed uint64) []swc.Message { return genLoop(rand.New(rand.NewPCG(seed, 9)), 260, text, 40) }
	bytesOf := func(msgs []swc.Message) int {
		n := 0
		for _, m := range msgs {
			n += len(m.Content) + len(m.Role) + len(m.ToolCallID)
			for _, tc := range m.ToolCalls {
				n += len(tc.Name) + len(tc.Arguments) + len(tc.ID)
			}
		}
		return n
	}
	other := gen(seed + 1<<40)
	perByte := float64(c.tokensOf(other)) / float64(bytesOf(other))
	msgs := gen(seed)
	var at []int
	for _, k := range requestPrefixes(msgs) {
		if n := float64(bytesOf(msgs[:k])) * perByte; n >= float64(from) && n <= float64(to) {
			at = append(at, k)
		}
	}
	if len(at) < 2 {
		b.Fatalf("loop of %.0f tokens: want %d and more", float64(bytesOf(msgs))*perByte, to)
	}
	return msgs, at
}

// tokensOf is the cost of msgs.
func (c *Compressor) tokensOf(msgs []swc.Message) int {
	n := 0
	for _, m := range msgs {
		n += c.Cost(m)
	}
	return n
}

// reportPercentiles reports the median, the 99th percentile (nearest
// rank) and the mean of cpu in milliseconds.
func reportPercentiles(b *testing.B, cpu []time.Duration) {
	if len(cpu) == 0 {
		return
	}
	s := slices.Clone(cpu)
	slices.Sort(s)
	at := func(q float64) float64 {
		i := int(q*float64(len(s))+0.999999) - 1
		return float64(s[min(max(i, 0), len(s)-1)]) / 1e6
	}
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	b.ReportMetric(at(0.5), "p50-cpu-ms")
	b.ReportMetric(at(0.99), "p99-cpu-ms")
	b.ReportMetric(float64(sum)/float64(len(s))/1e6, "cpu-ms/op")
}
