package memory

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCallSummary: a dropped call's line shows what the call was on —
// values without JSON's names and quotes, a path's end kept when it is
// cut, a shell command without the `cd` every step starts with, an XML
// call's parameter values — in at most callBytes bytes of arguments.
func TestCallSummary(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args, want string
	}{
		{"a view of a long path", "str_replace_editor", `{"command": "view", "path": "/workspace/ponylang__ponyc__0.1/src/libponyc/ast/parser.c"}`,
			"str_replace_editor(view /workspace/…/libponyc/ast/parser.c)"},
		{"short arguments whole", "Read", `{"file_path":"src/a.go","limit":40}`, "Read(src/a.go 40)"},
		{"null and empty left out", "Grep", `{"pattern":"TODO","path":null,"glob":""}`, "Grep(TODO)"},
		{"a list compact", "view", `{"view_range":[314,317]}`, "view([314,317])"},
		{"a shell command in JSON", "execute_bash", `{"command": "cd /workspace/ponylang__ponyc__0.1 && grep -n \"DECL(pattern);\" src/libponyc/ast/parser.c"}`,
			`execute_bash(grep -n "DECL(pattern);" src/li…c/ast/parser.c)`},
		{"an edit: the path, then what fits", "Edit", `{"file_path":"/home/dev/project/internal/server/handlers.go","old_string":"func (s *Server) handle(w http.ResponseWriter)","new_string":"x"}`,
			"Edit(/home/dev/p…nal/server/handlers.go func (s…)"},
		{"no object", "custom", `free text arguments`, "custom(free text arguments)"},
		{"an edit's string is no command", "Edit", `{"file_path":"a.sh","old_string":"cd x && rm -rf y"}`, "Edit(a.sh cd x && rm -rf y)"},
		{"a text agent's command that only looks like an XML call", "", "echo $(date)\n<<EOF", "echo $(date) <<EOF"},
		{"a text agent's command", "", "cd /testbed && python -m pytest tests/model_fields/test_jsonfield.py -x -q 2>&1 | tail -20",
			"python -m pytest tests/mod…s/test_jsonfield.py…"},
		{"a text agent's command, cd alone", "", "cd /testbed", "cd /testbed"},
		{"an XML call", "", "read file(path=bff/src/services/holdingService.ts)\n<read_file>\n<path>bff/src/services/holdingService.ts</path>\n</read_file>",
			"read_file(bff/src/services/holdingService.ts)"},
		{"an XML value holding a comma", "", xmlCommand("<read_file>\n<path>docs/a, b.md</path>\n</read_file>"), "read_file(docs/a, b.md)"},
		{"an XML call with a long value", "", xmlCommand("<write_to_file>\n<path>src/a.ts</path>\n<content>\nconst a = 1;\nconst b = 2;\n</content>\n</write_to_file>"),
			"write_to_file(src/a.ts)"},
	} {
		got := callSummary(tc.tool, tc.args)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestFitValues: whatever the words, the result is valid UTF-8 of at most
// n bytes (the "…" marks included).
func TestFitValues(t *testing.T) {
	words := []string{"日本語のパスです/とても/長い/ディレクトリ/ファイル.go", "x", strings.Repeat("é", 40), "tail"}
	for n := 1; n <= 80; n++ {
		got := fitValues(append([]string(nil), words...), n)
		if !utf8.ValidString(got) || len(got) > n+len("…") {
			t.Errorf("n=%d: %q (%d bytes)", n, got, len(got))
		}
	}
}
