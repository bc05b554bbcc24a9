package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

var handleRE = regexp.MustCompile(`swc:h[0-9a-f]+`)

// geminiParallelLoop returns a generateContent body of a loop whose model
// contents each make two calls of the same function at once, without ids
// (as the Gemini API sends them), the first part alone signed (the API
// signs only the first call of parallel ones), answered in order by one
// user content of two function responses.
func geminiParallelLoop(turns int) []byte {
	var cs []string
	cs = append(cs, `{"role":"user","parts":[{"text":"Find why the import of pkg/store is slow."}]}`)
	for i := range turns {
		out := func(k int) string {
			return strings.Repeat(fmt.Sprintf("store/file_%d_%d.go:%d: func load%d_%d() {\\n", i, k, 100+i, i, k), 10)
		}
		cs = append(cs,
			fmt.Sprintf(`{"role":"model","parts":[{"functionCall":{"name":"read_file","args":{"path":"store/file_%d_0.go"}},"thoughtSignature":"c2ln%04d"},{"functionCall":{"name":"read_file","args":{"path":"store/file_%d_1.go"}}}]}`, i, i, i),
			fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"name":"read_file","response":{"output":"%s"}}},{"functionResponse":{"name":"read_file","response":{"output":"%s"}}}]}`, out(0), out(1)))
	}
	return []byte(`{"contents":[` + strings.Join(cs, ",") + `],"systemInstruction":{"parts":[{"text":"You are a coding agent."}]},"tools":[{"functionDeclarations":[{"name":"read_file"}]}]}`)
}

// TestGeminiParallelCallsCompressed: a loop of parallel calls without ids
// is compressed under the budget into a body the Gemini API accepts:
// contents alternate from a user one, each model content's calls are
// answered by the next content with as many responses, each answering
// the call in its place (its output, whole or stubbed, names that call's
// file), the first call of every model content keeps its own turn's
// signature, each stub has a handle of its own, and the loop's last model
// content and its answer go byte for byte.
func TestGeminiParallelCallsCompressed(t *testing.T) {
	body := geminiParallelLoop(40)
	orig, err := chat.Parse(body, chat.Gemini)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{2000, 4000, 8000} {
		o := DefaultOptions()
		o.Budget = budget
		c := mustNew(t, o)
		res, err := c.Compress(t.Context(), orig.Messages)
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		if res.Fits || res.Tokens > budget {
			t.Fatalf("budget %d: not compressed under the budget: %d → %d tokens", budget, res.TokensBefore, res.Tokens)
		}
		// Each stub names its own call: the two calls of a content, both
		// without an id, have handles of their own.
		if len(res.Rewritten) == 0 {
			t.Fatalf("budget %d: no output stubbed", budget)
		}
		seen := map[string]bool{}
		for i, text := range res.Rewritten {
			h := handleRE.FindString(text)
			if h == "" || seen[h] {
				t.Errorf("budget %d: the stub of message %d has handle %q (seen before: %v)", budget, i, h, seen[h])
			}
			seen[h] = true
		}
		out, err := SpliceRequest(orig, res)
		if err != nil {
			t.Fatalf("budget %d: splice: %v", budget, err)
		}
		if _, err := chat.Parse(out, chat.Gemini); err != nil {
			t.Fatalf("budget %d: the body sent does not parse: %v", budget, err)
		}
		var req struct {
			Contents []struct {
				Role  string
				Parts []map[string]json.RawMessage
			}
		}
		if err := json.Unmarshal(out, &req); err != nil {
			t.Fatal(err)
		}
		var prevPaths []string
		for i, c := range req.Contents {
			if want := []string{"user", "model"}[i%2]; c.Role != want {
				t.Fatalf("budget %d: contents[%d] is %s, want %s", budget, i, c.Role, want)
			}
			var paths []string
			responses := 0
			for j, p := range c.Parts {
				if fc := p["functionCall"]; fc != nil {
					var v struct{ Args struct{ Path string } }
					json.Unmarshal(fc, &v)
					if len(paths) == 0 {
						// the first call is signed with its own turn's signature
						var turn int
						fmt.Sscanf(v.Args.Path, "store/file_%d_0.go", &turn)
						if want := fmt.Sprintf(`"c2ln%04d"`, turn); string(p["thoughtSignature"]) != want {
							t.Errorf("budget %d: contents[%d]: the first call's signature is %s, want %s", budget, i, p["thoughtSignature"], want)
						}
					}
					paths = append(paths, v.Args.Path)
				}
				if fr := p["functionResponse"]; fr != nil {
					var v struct {
						Name     string
						Response struct{ Output string }
					}
					json.Unmarshal(fr, &v)
					// a response answers the call in its place: its output,
					// whole or stubbed, names that call's file
					if responses >= len(prevPaths) || v.Name != "read_file" ||
						!strings.Contains(v.Response.Output, strings.TrimSuffix(strings.TrimPrefix(prevPaths[responses], "store/"), ".go")) {
						t.Errorf("budget %d: contents[%d] part %d does not answer the call in its place (%v): %.120s", budget, i, j, prevPaths, v.Response.Output)
					}
					responses++
				}
			}
			if responses != len(prevPaths) {
				t.Errorf("budget %d: contents[%d] holds %d responses to %d calls", budget, i, responses, len(prevPaths))
			}
			prevPaths = paths
		}
		prev := len(prevPaths)
		n := len(req.Contents)
		if n < 3 || prev != 0 {
			t.Fatalf("budget %d: %d contents, the last one making %d calls", budget, n, prev)
		}
		var raw struct{ Contents []json.RawMessage }
		if err := json.Unmarshal(out, &raw); err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= 2; k++ {
			if got, want := raw.Contents[n-k], orig.Raw[len(orig.Raw)-k]; !bytes.Equal(got, want) {
				t.Errorf("budget %d: contents[%d] of the newest exchange changed:\n got %s\nwant %s", budget, n-k, got, want)
			}
		}
		t.Logf("budget %d: %d → %d tokens, %d of %d contents", budget, res.TokensBefore, res.Tokens, n, len(orig.Raw))
	}
}
