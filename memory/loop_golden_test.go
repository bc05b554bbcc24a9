package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/golden"
)

// TestLoopGolden compresses one generated tool loop (12 steps of calls,
// within the budget: the window stubs its old outputs and clips the prose
// of their turns, three of which reason at length, and the long argument
// of two old calls, a script written by a heredoc) in each format and
// compares the body sent, indented, with testdata/loop-FORMAT.golden.json:
// what a stub, the kept turns and the untouched fields look like on the
// wire. A change to the window, the stubs or a splice shows up as a diff.
func TestLoopGolden(t *testing.T) {
	msgs := genLoop(rand.New(rand.NewPCG(3, 4)), 12, false, 24)
	long := 0
	for i := range msgs {
		if msgs[i].Role == swc.RoleAssistant && len(msgs[i].ToolCalls) > 0 && long < 3 {
			msgs[i].Content = fmt.Sprintf("Step %d: the failing assertion points at the parser. ", long) + strings.Repeat("It reads the header before the encoding is set, so every non-ASCII name is lost on the way in. ", 3) + "I will print the file next."
			long++
		}
	}
	script := "cat > tests/test_header.py <<'EOF'\nimport unittest\nfrom mail.parser import parse_header\n\n"
	for k := range 12 {
		script += fmt.Sprintf("class HeaderCase%02d(unittest.TestCase):\n    def test_decode(self):\n        self.assertEqual(parse_header('h%02d'), 'h%02d')\n", k, k, k)
	}
	script += "EOF\npython -m pytest tests/test_header.py -q"
	args, _ := json.Marshal(map[string]string{"command": script})
	scripted := 0
	for i := range msgs {
		if msgs[i].Role == swc.RoleAssistant && len(msgs[i].ToolCalls) > 0 && scripted < 2 {
			msgs[i].ToolCalls = append([]swc.ToolCall(nil), msgs[i].ToolCalls...)
			msgs[i].ToolCalls[0].Arguments = string(args)
			scripted++
		}
	}
	for _, f := range []chat.Format{chat.OpenAI, chat.Anthropic, chat.Responses, chat.Gemini, chat.Interactions} {
		t.Run(string(f), func(t *testing.T) {
			o := DefaultOptions()
			o.Budget = 16000
			c := mustNew(t, o)
			if f == chat.Anthropic || f == chat.Gemini {
				c = c.WithAlignUser()
			}
			res, body := sendLoop(t, c, msgs, f)
			stubs, turns := 0, 0
			for i := range res.Rewritten {
				if msgs[i].Role == swc.RoleAssistant {
					turns++
				} else {
					stubs++
				}
			}
			if stubs == 0 || turns == 0 || len(res.Calls) == 0 {
				t.Fatalf("%d observations stubbed, %d turns clipped, %d turns' calls clipped: the golden loop must show all three", stubs, turns, len(res.Calls))
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
