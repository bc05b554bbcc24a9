package memory

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

// writeLoop is a loop whose every turn writes a file whole through a tool
// call, and half of whose results a reminder of its own follows (a user
// text after the results, as Claude Code writes beside them).
func writeLoop(rng *rand.Rand, steps int) []swc.Message {
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "You are a coding agent."},
		{Role: swc.RoleUser, Content: "Fix the crash in src/app/parser.py when parse_header gets an empty line."},
	}
	for s := range steps {
		file := fmt.Sprintf("src/app/mod_%d.py", rng.IntN(50))
		args, _ := json.Marshal(map[string]string{"path": file, "content": genOutput(rng, file, 10+rng.IntN(60))})
		id := fmt.Sprintf("call_%04d", s)
		msgs = append(msgs,
			swc.Message{Role: swc.RoleAssistant, Content: "I write " + file + strings.Repeat(" and the header is read before its encoding.", rng.IntN(10)), ToolCalls: []swc.ToolCall{{ID: id, Name: "write_file", Arguments: string(args)}}},
			swc.Message{Role: swc.RoleTool, ToolCallID: id, Content: genOutput(rng, file, 5+rng.IntN(60))})
		if rng.IntN(2) == 0 {
			msgs = append(msgs, swc.Message{Role: swc.RoleUser, Content: "<system-reminder>\n" + genOutput(rng, file, 5+rng.IntN(40)) + "</system-reminder>"})
		}
	}
	return msgs
}

// TestLoopWalkPrefixOnly: the walk over a request's prefix depends on
// that prefix alone, the clipped turns' savings included: over the
// requests of a growing loop the boundary and the drop point never move
// back and the boundary each unit was passed by stays, so that requests
// between two jumps extend each other. The loop's last turn is priced
// whole (its calls go whole); a user text after its results leaves it
// the last until the next turn is walked, and only then does its saving
// count (it counted at once, and the next request dropped less: d moved
// back).
func TestLoopWalkPrefixOnly(t *testing.T) {
	walks, seeds := 0, 60
	if testing.Short() {
		seeds = 10
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 9))
		msgs := writeLoop(rng, 15+rng.IntN(40))
		for _, budget := range []int{4000, 8000, 16000} {
			for _, keep := range []int{0, -1} {
				o := DefaultOptions()
				o.Budget, o.LoopKeep = budget, keep
				c := mustNew(t, o)
				pb, pd, pp := -1, -1, 0
				var pat []int
				for _, p := range requestPrefixes(msgs) {
					m := msgs[:p]
					l := asLoop(m)
					if l == nil {
						continue
					}
					c.pin(m, l)
					lc := &loopCosts{msgs: m, cost: make([]int, len(m)), stubCap: c.opts.StubTokens + MessageOverhead, share: max(c.opts.StubShare, 0)}
					for i := range m {
						lc.cost[i] = c.Cost(m[i])
					}
					fixed := 0
					for _, i := range slices.Concat(l.instr, l.head) {
						fixed += lc.cost[i]
					}
					b, d, _ := c.loopWalk(l, lc, fixed)
					walks++
					if pb >= 0 && (b < pb || d < pd || !slices.Equal(l.at[:pb], pat[:pb])) {
						t.Fatalf("seed %d, budget %d, LoopKeep %d: %d messages b=%d d=%d, then %d messages b=%d d=%d", seed, budget, keep, pp, pb, pd, p, b, d)
					}
					pb, pd, pp, pat = b, d, p, slices.Clone(l.at)
				}
			}
		}
	}
	if walks < 1000 {
		t.Fatalf("%d walks: the generator makes no loops", walks)
	}
}
