package memory

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/golden"
)

// TestLoopGolden compresses one generated tool loop (12 steps of calls,
// within the budget: the window stubs its old outputs) in each format and
// compares the body sent, indented, with testdata/loop-FORMAT.golden.json:
// what a stub, the kept turns and the untouched fields look like on the
// wire. A change to the window, the stubs or a splice shows up as a diff.
func TestLoopGolden(t *testing.T) {
	msgs := genLoop(rand.New(rand.NewPCG(3, 4)), 12, false, 24)
	for _, f := range []chat.Format{chat.OpenAI, chat.Anthropic, chat.Responses, chat.Gemini} {
		t.Run(string(f), func(t *testing.T) {
			o := DefaultOptions()
			o.Budget = 16000
			c := mustNew(t, o)
			if f == chat.Anthropic || f == chat.Gemini {
				c = c.WithAlignUser()
			}
			res, body := sendLoop(t, c, msgs, f)
			if len(res.Rewritten) == 0 {
				t.Fatal("no observation stubbed: the golden loop must show stubs")
			}
			var out bytes.Buffer
			if err := json.Indent(&out, body, "", "  "); err != nil {
				t.Fatal(err)
			}
			out.WriteByte('\n')
			golden.Check(t, filepath.Join("testdata", "loop-"+string(f)+".golden.json"), out.Bytes())
		})
	}
}
