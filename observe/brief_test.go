package observe

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestBrief(t *testing.T) {
	tests := []struct {
		name string
		o    Observation
		n    int
		want string
	}{
		{
			name: "code naming an error is no error",
			o:    Observation{Output: "import x from 'y';\n\nexport const getHolding = async (req, res) => {\n  const error = new Error('Unauthorized');\n  throw error;\n};\n\nexport function closeHolding(id) {\n  return id;\n}"},
			n:    120,
			want: "10 lines: getHolding closeHolding",
		},
		{
			name: "python view with line numbers",
			o:    Observation{Output: "Here's the result of running `cat -n` on /w/a.py:\n   1\tclass Field:\n   2\t    def get_prep_value(self, value):\n   3\t        raise ValueError('x')\n   4\t    async def run(self):\n   5\t        pass"},
			n:    120,
			want: "6 lines: Field get_prep_value run",
		},
		{
			name: "go methods and types",
			o:    Observation{Output: "package a\n\ntype Store struct {\n}\n\nfunc (s *Store) Get(k string) {}\n\nfunc New() *Store { return nil }"},
			n:    120,
			want: "8 lines: Store Get New",
		},
		{
			name: "c functions",
			o:    Observation{Output: "#include <a.h>\n\nstatic int parse_x(parser_t* p)\n{\n  return f(p);\n}\n\nast_t* ast_new(token_t* t)\n{\n}"},
			n:    120,
			want: "10 lines: parse_x ast_new",
		},
		{
			name: "error headline",
			o:    Observation{Output: "ERROR:\nNo replacement was performed, old_str `x` did not appear verbatim in /w/a.py."},
			n:    120,
			want: "2 lines, ERROR: No replacement was performed, old_str `x` did not appear verbatim in /w/a.py.",
		},
		{
			name: "compiler error after noise",
			o:    Observation{Output: "building...\nsrc/a.c:12:5: error: unknown type name 'foo'\n1 error generated.", IsError: true},
			n:    80,
			want: "error, 3 lines, src/a.c:12:5: error: unknown type name 'foo'",
		},
		{
			name: "an editor's diagnostics",
			o:    Observation{Output: "[write_to_file for 'a.ts'] Result:\nThe content was saved.\n\nNew problems detected after saving the file:\na.ts\n- [ts Error] Line 291: Argument of type '{ id: string; }' is not assignable.\n<environment_details>\n# VSCode Open Tabs\na.ts\n</environment_details>"},
			n:    80,
			want: "5 lines, - [ts Error] Line 291: Argument of type '{ id: string; }' is not assign…",
		},
		{
			name: "listing, common directory cut, environment details left out",
			o:    Observation{Output: "[list_files for 'bff/src/controllers'] Result:\nbff/src/controllers/categoryController.ts\nbff/src/controllers/holdingController.ts\nbff/src/controllers/portfolioController.ts\n<environment_details>\n# VSCode Visible Files\nx.ts\n</environment_details>"},
			n:    120,
			want: "3 lines: categoryController.ts holdingController.ts portfolioController.ts",
		},
		{
			name: "listing cut to fit",
			o:    Observation{Output: "a.ts\nb.ts\nc.ts\nd.ts\nsrc/\n"},
			n:    28,
			want: "5 lines: a.ts b.ts c.ts …",
		},
		{
			name: "a tree",
			o:    Observation{Output: "- /w/proj/\n  - go.mod\n  - main.go\n  - cmd/"},
			n:    120,
			want: "4 lines: /w/proj/ go.mod main.go cmd/",
		},
		{
			name: "search hits name their files",
			o:    Observation{Output: "src/a.py:12:def f():\nsrc/a.py:30:    f()\nsrc/b/c.py:7:from a import f"},
			n:    120,
			want: "3 lines: a.py b/c.py",
		},
		{
			name: "prose is neither",
			o:    Observation{Output: "The file was saved.\nAll good."},
			n:    120,
			want: "2 lines",
		},
		{
			name: "exit status and test summary",
			o:    Observation{Output: "<returncode>1</returncode>\n<output>\nFAILED tests/test_a.py::test_x - assert 1 == 2\n===== 1 failed, 3 passed in 0.2s =====\n</output>"},
			n:    120,
			want: "exit 1, 1 failed, 3 passed, 2 lines, FAILED tests/test_a.py::test_x - assert 1 == 2",
		},
		{
			name: "an output the provider marked as an error, ExUnit's summary",
			o:    Observation{IsError: true, Output: "[error] Exit code 2\nRunning ExUnit with seed: 1\n\n  1) test renders (AppTest)\n     test/app_test.exs:12\n     ** (RuntimeError) boom\n\nFinished in 1.0 seconds\n58 tests, 1 failure"},
			n:    120,
			want: "exit 2, 58 tests, 1 failure, 8 lines, ** (RuntimeError) boom",
		},
		{
			name: "versions are no listing",
			o:    Observation{Output: "Resolving Hex dependencies...\nResolution completed in 1.375s\nUnchanged:\n  fine 0.1.4\n  lazy_html 0.1.8\n  jason 1.4.4"},
			n:    120,
			want: "6 lines",
		},
		{
			name: "one line that repeats the call",
			o:    Observation{Tool: "Edit", Arguments: `{"file_path":"a.ts"}`, Output: "The file a.ts has been updated."},
			n:    120,
			want: "1 line",
		},
		{
			name: "one line with a path the call lacks",
			o:    Observation{Tool: "Glob", Arguments: `{"pattern":"test/**/*_test.exs"}`, Output: "/w/test/app/live_test.exs"},
			n:    120,
			want: "1 line: /w/test/app/live_test.exs",
		},
		{
			name: "one short line",
			o:    Observation{Tool: "Grep", Arguments: `{"pattern":"toggle_group"}`, Output: "No matches found"},
			n:    120,
			want: "1 line: No matches found",
		},
		{
			name: "ls: files and directories",
			o:    Observation{Tool: "Bash", Arguments: `{"command":"ls lib/"}`, Output: "application.ex\nbuilder.ex\ndsl\ndsl.ex\ntransformers"},
			n:    120,
			want: "5 lines: application.ex builder.ex dsl dsl.ex transformers",
		},
		{
			name: "words are no listing",
			o:    Observation{Output: "yes\nno\nok.go"},
			n:    120,
			want: "3 lines",
		},
		{
			name: "a file written: what its code defines",
			o:    Observation{Tool: "Write", Arguments: `{"file_path":"lib/store.ex","content":"defmodule Store do\n  def start_link(opts) do\n  end\n  defp hidden do\n  end\nend"}`, Output: "File created successfully at: lib/store.ex"},
			n:    120,
			want: "1 line, defines Store start_link hidden",
		},
		{
			name: "an edit and a patch: their new code",
			o:    Observation{Tool: "MultiEdit", Arguments: `{"file_path":"a.py","edits":[{"old_string":"def old():","new_string":"def fresh():"}],"patch":"*** Update File: b.go\n-func Gone() {}\n+func Added() {}"}`, Output: "ok"},
			n:    120,
			want: "1 line, defines fresh Added",
		},
		{
			name: "a heredoc with no output",
			o:    Observation{Arguments: "cat <<'EOF' > t.py\nclass KeyTransformIn(lookups.In):\n    def process_rhs(self):\n        pass\nEOF", Output: "<returncode>0</returncode>\n<output>\n</output>"},
			n:    120,
			want: "exit 0, no output, defines KeyTransformIn process_rhs",
		},
		{
			name: "no output",
			o:    Observation{Output: "<returncode>0</returncode>\n<output>\n</output>"},
			n:    120,
			want: "exit 0, no output",
		},
		{
			name: "no room for names",
			o:    Observation{Output: "a.ts\nb.ts"},
			n:    12,
			want: "2 lines",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Brief(tt.o, tt.n); got != tt.want {
				t.Errorf("Brief = %q\nwant    %q", got, tt.want)
			}
		})
	}
}

// TestDefinitionNames: the name a definition's first line defines, by
// its kind's word (defName) or as a C-like function head (headName);
// calls, statements and prose define none.
func TestDefinitionNames(t *testing.T) {
	for _, set := range []struct {
		name  string
		f     func(string) string
		cases map[string]string
	}{
		{"headName", headName, map[string]string{
			"static int parse_x(parser_t* p)":    "parse_x",
			"ast_t* ast_new(token_t* t, int id)": "ast_new",
			"void Foo::bar() {":                  "bar",
			"int main(int argc, char** argv)":    "main",
			"int f(int);":                        "",
			"describe('x', () => {":              "",
			"main()":                             "",
			"return f(x)":                        "",
			"if (x) {":                           "",
			"await load(x)":                      "",
			"x = f(y)":                           "",
			"print(f(x))":                        "",
			"a.b c(d)":                           "",
			"Review the changes and make sure they are as expected (correct indentation). Edit again.": "",
			"Make sure it is expected (see above)":                                                     "",
			"static const char* const name(void) {":                                                    "name",
		}},
		{"defName", defName, map[string]string{
			"def f(x):":                       "f",
			"async def g():":                  "g",
			"class A(B):":                     "A",
			"export default class App {":      "App",
			"export async function load() {":  "load",
			"pub fn parse(s: &str) {":         "parse",
			"func (r *Repo) Find(id int) {":   "Find",
			"export const f = async (a) => {": "f",
			"const g = function (a) {":        "g",
			"const h = 3;":                    "",
			"let x = (a + b);":                "",
			"interface Props {":               "Props",
			"export type Id = string;":        "Id",
			"return f(x)":                     "",
			"definitely not":                  "",
			"type ":                           "",
			"function* gen() {":               "gen",
			"defmodule Spotter.Store do":      "Spotter.Store",
			"defp hidden(x) do":               "hidden",
			"fun main(args: Array<String>) {": "main",
			"private static void main(String": "",
		}},
	} {
		for in, want := range set.cases {
			if got := set.f(in); got != want {
				t.Errorf("%s(%q) = %q, want %q", set.name, in, got, want)
			}
		}
	}
}

// TestBriefBounded: whatever the output, Brief stays near its bytes (an
// error headline may take 24 at least), valid UTF-8 in, valid out.
func TestBriefBounded(t *testing.T) {
	long := strings.Repeat("é", 300)
	outs := []string{
		"Error: " + long,
		strings.Repeat("src/"+long[:40]+".go\n", 50),
		strings.Repeat("def "+long[:60]+"():\n", 20),
		"a.ts\n" + long + ".ts",
	}
	for _, n := range []int{0, 10, 40, 100} {
		for _, out := range outs {
			got := Brief(Observation{Output: out}, n)
			if !utf8.ValidString(got) {
				t.Errorf("Brief(%.20q, %d) = %q: invalid UTF-8", out, n, got)
			}
			if len(got) > max(n, 24+len(", 51 lines")+len("…")+2) && len(got) > n+8 {
				t.Errorf("Brief(%.20q, %d) = %d bytes: %q", out, n, len(got), got)
			}
		}
	}
}

// TestStubResultBody: a stub of a result an agent got in its user's text
// holds the output, not the result's header or the editor's state
// appended after it.
func TestStubResultBody(t *testing.T) {
	out := "[read_file for 'a.ts'] Result:\nexport const a = 1;\n\n<environment_details>\n# VSCode Open Tabs\na.ts\n</environment_details>"
	got := Stub(Observation{Output: out}, StubOptions{Handle: "h0000000000", OmitCall: true})
	if want := "[swc:h0000000000 → ok]\nexport const a = 1;"; got != want {
		t.Errorf("Stub = %q, want %q", got, want)
	}
	// Text after the block is the output's own: kept.
	out = "[read_file for 'a.md'] Result:\nsee <environment_details>\nthen more"
	if got := Stub(Observation{Output: out}, StubOptions{Handle: "h0000000000", OmitCall: true}); !strings.HasSuffix(got, "then more") {
		t.Errorf("Stub = %q: the output's own text lost", got)
	}
}

// TestStubErrorMark: chat's "[error] " before an output its provider
// marked as an error is not read as output: the exit status after it is.
func TestStubErrorMark(t *testing.T) {
	o := Observation{IsError: true, Output: "[error] Exit code 1\nFAILED test_a.py::test_x\n===== 1 failed in 0.1s ====="}
	got := Stub(o, StubOptions{Handle: "h0000000000", OmitCall: true})
	if want := "[swc:h0000000000 → exit 1, 1 failed]\nFAILED test_a.py::test_x\n===== 1 failed in 0.1s ====="; got != want {
		t.Errorf("Stub = %q, want %q", got, want)
	}
	// Without the provider's mark the text is the output's own.
	o.IsError = false
	if got := Stub(o, StubOptions{Handle: "h0000000000", OmitCall: true}); !strings.Contains(got, "[error] Exit code 1") {
		t.Errorf("Stub = %q: an unmarked output's text lost", got)
	}
}

// TestBriefNotMisled: code, settings, prose and comments that look like
// an error line, a test summary, a listing or a definition are none.
func TestBriefNotMisled(t *testing.T) {
	tests := []struct {
		name, out, want string
	}{
		{"an enum member", "class Status(Enum):\n    FAILED = 2\n    DONE = 3", "3 lines: Status"},
		{"a C enumerator", "enum e {\n    OK,\n    ERROR_NOT_FOUND,\n};", "4 lines: e"},
		{"a Rust match arm", "match e {\n        Error::NotFound => 1,\n}", "3 lines"},
		{"a settings key", "colors:\n  error: red\n  warning: orange\n", "3 lines"},
		{"a Markdown bullet", "# Changes\n\n* pgconn: error messages that embed secrets are redacted\n* more", "4 lines"},
		{"a numbered view raising", "     1\tdef f():\n     2\t    raise ValueError('x')\n     3\tError: not a headline in a view", "3 lines: f"},
		{"a C block comment", "/*\n** (a virtual table) designed for tests\n*/\nstatic int xOpen(sqlite3_vtab *p){", "4 lines: xOpen"},
		{"an ExUnit test file viewed", "     1→defmodule FooTest do\n     2→  test \"returns failure on bad input\" do\n     3→  end\n     4→end", "4 lines: FooTest"},
		{"a numbered Markdown item", "2. **Return an error at render time** in some cases", "1 line"},
		{"prose after a kind's word", "type of value that is kept\nclass of errors we see\nobject with fields", "3 lines"},
		{"go.mod", "module github.com/x/y\n\ngo 1.22", "3 lines"},
		{"a Ruby class method and a C function returning a struct", "def self.create(x)\nend\nstruct ret f(int a)", "3 lines: create f"},
		{"a call, not a head", "export default defineConfig({\n  plugins: [],\n})", "3 lines"},
		{"prose with calls", "Use run(x) and then stop(y),\nthen go home.", "2 lines"},
		{"git log --oneline", "abc1234 fix src/a.go\ndef5678 add lib/b.go", "2 lines"},
		{"grep -C groups", "src/a.py-11-x = 1\nsrc/a.py:12:def f():\n--\nsrc/b.py:7:f()", "4 lines: a.py b.py"},
		{"a numbered .gitignore", "     1→node_modules/\n     2→dist/\n     3→*.log", "3 lines: node_modules/ dist/ *.log"},
	}
	for _, tt := range tests {
		if got := Brief(Observation{Output: tt.out}, 120); got != tt.want {
			t.Errorf("%s: Brief = %q, want %q", tt.name, got, tt.want)
		}
	}
	// Still headlines: Elixir's error, a bare compiler error.
	for out, want := range map[string]string{
		"** (RuntimeError) boom":              "1 line, ** (RuntimeError) boom",
		"** (exit) exited in: GenServer.call": "1 line, ** (exit) exited in: GenServer.call",
		"error: expected `;`, found `}`":      "1 line, error: expected `;`, found `}`",
	} {
		if got := Brief(Observation{Output: out}, 120); got != want {
			t.Errorf("Brief(%q) = %q, want %q", out, got, want)
		}
	}
	// A text agent's command line is no code it wrote; its heredoc is.
	if got := Brief(Observation{Arguments: "type python3", Output: "<returncode>0</returncode>\n<output>\n</output>"}, 120); got != "exit 0, no output" {
		t.Errorf("Brief of `type python3` = %q", got)
	}
}

func TestResultBodyLongHeader(t *testing.T) {
	out := "[execute_command for 'echo a &&\necho b'] Result:\nCommand executed.\nOutput:\na\nb"
	if got, want := resultBody(out), "Command executed.\nOutput:\na\nb"; got != want {
		t.Errorf("resultBody = %q, want %q", got, want)
	}
}

func TestFitNames(t *testing.T) {
	tests := []struct {
		names []string
		n     int
		want  string
	}{
		{[]string{"abcdefghijkl"}, 12, "abcdefghijkl"},
		{[]string{"abcdefghij", "k"}, 12, "abcdefghij k"},
		{[]string{"abc", "def", "ghi"}, 9, "abc …"},
		{[]string{"abcdefghijklmnopqrst", "b"}, 12, "abcdefghi…"},
	}
	for _, tt := range tests {
		if got := fitNames(tt.names, tt.n); got != tt.want || len(got) > tt.n {
			t.Errorf("fitNames(%q, %d) = %q, want %q", tt.names, tt.n, got, tt.want)
		}
	}
}

// TestBriefLinear: long one-line outputs of many separators, and one
// that echoes its long arguments, take milliseconds, not seconds (a
// scan per separator over the line before, an argument search per
// identifier, took 0.4–6.5 s on these).
func TestBriefLinear(t *testing.T) {
	var echo strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&echo, "name_%d ", i)
	}
	cases := []Observation{
		{Output: strings.Repeat(`{"id":0,"created_at":"2024-01-02T10:00:00Z"},`, 4000)},
		{Output: strings.Repeat("2024-01-02 ", 15000)},
		{Output: strings.Repeat("a-1-", 50000)},
		{Output: strings.Repeat("0:0:", 50000)},
		{Tool: "Bash", Arguments: `{"command":"echo ` + echo.String() + `"}`, Output: echo.String()},
	}
	for i, o := range cases {
		start := time.Now()
		Brief(o, 120)
		d := time.Since(start)
		t.Logf("case %d: %v", i, d)
		if d > 300*time.Millisecond {
			t.Errorf("case %d: %v", i, d)
		}
	}
}
