package http_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

// turnLoop is recallLoop with assistant turns that reason at length
// before their call: old turns are clipped (memory.Options.TurnTokens).
// It returns the messages and each turn's reasoning by its step.
func turnLoop(tag string, n int) ([]swc.Message, []string) {
	msgs, _ := recallLoop(tag, n)
	var reasons []string
	step := 0
	for i := range msgs {
		if msgs[i].Role != swc.RoleAssistant || len(msgs[i].ToolCalls) == 0 {
			continue
		}
		r := fmt.Sprintf("Step %d: I read file%d.go next.", step, step) + strings.Repeat(fmt.Sprintf(" The value_%s_%d column looks wrong because compute runs before the cache fills, so the totals drift.", tag, step), 4) + fmt.Sprintf(" Marker reason_%s_%d.", tag, step)
		msgs[i].Content = r
		reasons = append(reasons, r)
		step++
	}
	return msgs, reasons
}

// clippedTurn finds a clipped assistant turn's handle in a request sent:
// "[swc:HANDLE …]" after the turn's first sentences.
var clippedTurn = regexp.MustCompile(`Step (\d+): I read file\d+\.go next\.[^"\[]*\[swc:(h[0-9a-f]{10}) …\]`)

// TestRecallClippedTurn: an old assistant turn of a tool loop goes out
// clipped to its first sentences and a handle, its tool call as it was;
// the upstream calls swc_recall with that handle and gets the whole turn
// back (its reasoning and its call), in every protocol, streamed or not.
func TestRecallClippedTurn(t *testing.T) {
	for _, c := range recallCases {
		t.Run(c.String(), func(t *testing.T) {
			e := newProxyEnv(t)
			msgs, reasons := turnLoop("a", 14)
			var step int
			script(e, c, []recallReply{{}, {}}, func(b []byte) string {
				m := clippedTurn.FindSubmatch(b)
				if m == nil {
					t.Errorf("no clipped turn in the request sent: %.600s", b)
					return `{"handle":"h0000000000"}`
				}
				fmt.Sscan(string(m[1]), &step)
				if strings.Contains(string(b), fmt.Sprintf("Marker reason_a_%d.", step)) {
					t.Errorf("turn %d is clipped and whole at once", step)
				}
				if !strings.Contains(string(b), fmt.Sprintf("cat pkg/a/file%d.go", step)) {
					t.Errorf("turn %d's call is not sent", step)
				}
				return `{"handle":"` + string(m[2]) + `"}`
			})
			resp := e.post(t, c.path(), c.body(t, msgs), "X-SWC-Budget: 3000", "anthropic-version: 2023-06-01")
			got := readAll(t, resp)
			if resp.StatusCode != 200 || e.up.count() != 2 {
				t.Fatalf("%d, %d upstream requests: %s", resp.StatusCode, e.up.count(), got)
			}
			e.up.mu.Lock()
			second := e.up.bodies[1]
			e.up.mu.Unlock()
			results, _ := toolResults(t, c.proto, second)
			if len(results) != 1 || !strings.Contains(results[0], reasons[step]) ||
				!strings.Contains(results[0], fmt.Sprintf("cat pkg/a/file%d.go", step)) {
				t.Errorf("swc_recall returned %.300q; want turn %d whole: %.100q and its call", results, step, reasons[step])
			}
		})
	}
}
