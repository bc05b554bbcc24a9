package observe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc/internal/golden"
	"github.com/swcmem/swc/tokens"
)

// TestStubGolden stubs the made-up outputs of testdata/*.in as the call
// that would have produced them, with the call's identifiers Known, and
// compares with testdata/*.golden (go test -run TestStubGolden -update
// rewrites them).
func TestStubGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Observation
	}{
		{"view", Observation{Tool: "str_replace_editor", Arguments: `{"command": "view", "path": "/workspace/httpkit/httpkit/cache.py"}`}},
		{"sweagent", Observation{Arguments: "open httpkit/cache.py 35"}},
		{"read", Observation{Tool: "Read", Arguments: `{"file_path": "/workspace/httpkit/httpkit/cache.py", "offset": 120, "limit": 32}`}},
		{"grep", Observation{Tool: "Bash", Arguments: `{"command": "grep -rn Session internal cmd docs"}`}},
		{"traceback", Observation{Arguments: "python scripts/reproduce.py"}},
		{"pytest", Observation{Tool: "execute_bash", Arguments: `{"command": "cd /repo && pytest -q"}`}},
		{"diff", Observation{Arguments: "git diff"}},
		{"ls", Observation{Tool: "execute_bash", Arguments: `{"command": "ls -la"}`}},
		{"json", Observation{Tool: "Bash", Arguments: `{"command": "cat package.json"}`}},
		{"jsonline", Observation{Tool: "mcp__github__list_issues", Arguments: `{"owner": "acme", "repo": "pyconf", "per_page": 14}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Output = readTestdata(t, tc.name+".in")
			known := idSet(tc.o.Arguments)
			opt := StubOptions{Handle: Handle(tc.name, tc.o.Output), Known: func(id string) bool { return known[id] }}
			got := Stub(tc.o, opt)
			if n := tokens.Count(got); n > DefaultStubTokens {
				t.Errorf("stub of %d tokens", n)
			}
			if len(got) >= len(tc.o.Output) {
				t.Errorf("stub of %d lines for an output of %d: nothing cut", strings.Count(got, "\n"), strings.Count(tc.o.Output, "\n"))
			}
			body, _, _ := unwrap(tc.o.Output)
			if n, want := accounted(got), strings.Count(body, "\n")+1; n != want && tc.name != "jsonline" {
				t.Errorf("stub accounts for %d lines of %d", n, want) // (jsonline's pieces are of one line)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), []byte(got+"\n"))
		})
	}
}

// readTestdata returns the text of testdata/name.
func readTestdata(t testing.TB, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
