package observe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc/tokens"
)

func TestHandle(t *testing.T) {
	for _, tc := range []struct{ callID, output string }{
		{"call_001", "total 16\n"},
		{"", ""},
		{"toolu_01", strings.Repeat("x", 10000)},
	} {
		sum := sha256.Sum256([]byte(tc.callID + "\x00" + tc.output))
		want := "h" + hex.EncodeToString(sum[:])[:10]
		if got := Handle(tc.callID, tc.output); got != want {
			t.Errorf("Handle(%q, …) = %q, want %q", tc.callID, got, want)
		}
	}
	if Handle("a", "b") == Handle("a", "c") || Handle("a", "b") == Handle("b", "b") {
		t.Error("different observations share a handle")
	}
	if !regexp.MustCompile(`^h[0-9a-f]{10}$`).MatchString(Handle("x", "y")) {
		t.Errorf("handle %q is not h + 10 hex", Handle("x", "y"))
	}
}

func TestIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"just some words, nothing else 12 ok", nil},
		{`File "/repo/shop/money/convert.py", line 142, in convert_amount`,
			[]string{"/repo/shop/money/convert.py", "142", "convert_amount"}},
		{"src/a.py:203: in tokenize", []string{"src/a.py:203", "src/a.py", "203"}},
		{"internal/x.go:41:	mux.HandleFunc(\"/v1/sessions\", s.handleSessions)",
			[]string{"internal/x.go:41", "internal/x.go", "mux.HandleFunc", "HandleFunc", "/v1/sessions", "s.handleSessions", "handleSessions"}},
		{"a.go:12:5: undefined: fooBar", []string{"a.go:12", "a.go", "fooBar"}},
		{"see ./x/y and ../z/w.py and ~/cfg/app.toml", []string{"./x/y", "../z/w.py", "~/cfg/app.toml"}},
		{"self.assertEqual(models.CharField)", []string{"self.assertEqual", "assertEqual", "models.CharField", "CharField"}},
		{"django.db.models.QuerySet", []string{"django.db.models.QuerySet", "QuerySet"}},
		{"e.g. 3.14 v1.2.3 i.e. x.5", nil},
		{"MAX_SIZE __init__ x86_64 _private", []string{"MAX_SIZE", "__init__", "x86_64", "_private"}},
		{"getValue QuerySet HTTPServer iPhone Django URL", []string{"getValue", "QuerySet", "HTTPServer", "iPhone"}},
		{"port 8080 pid 12345 at 12:30:45", []string{"8080", "12345"}},
		{"localhost:8080", []string{"8080"}},
		{"https://github.com/acme/app/pull/12", []string{"github.com/acme/app/pull/12"}},
		{"repeat foo_bar then foo_bar", []string{"foo_bar"}},
		{"sphinx-doc/ext-autodoc.py", []string{"sphinx-doc/ext-autodoc.py"}},
		{"django-11532 my-var_name", []string{"11532", "var_name"}},
		{"café_crème naïveFoo", nil},
		{"…compute_total_price(cart)… →getValue", []string{"compute_total_price", "getValue"}},
		{"path/to/" + strings.Repeat("a", 300) + ".py", nil},
		{"   123\tdef get_prep_value(self, value):", []string{"123", "get_prep_value"}},
		{"     7→import { useQuery } from '@tanstack/react-query'", []string{"useQuery", "tanstack/react-query"}},
	} {
		if got := Identifiers(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Identifiers(%q)\n got %q\nwant %q", tc.text, got, tc.want)
		}
	}
}

func TestIsObservation(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"<returncode>0</returncode>\n<output>\nok\n</output>", true},
		{"<returncode>1</returncode>\n<warning>\nlong\n</warning><output_head>\n", true},
		{"OBSERVATION:\nfile1.py\nfile2.py", true},
		{"Observation: no matches", true},
		{"Exit code: 1\nWall time: 0.2 seconds\nOutput:\nboom", true},
		{"total 16\ndrwxr-xr-x 2 root root 4096 x\n[The command completed with exit code 0.]", true},
		{"Here's the result of running `cat -n` on /x/y.py:\n     1\timport os", true},
		{"Your command ran successfully and did not produce any output.", true},
		{"EXECUTION RESULT of [execute_bash]:\nhello", true},
		{"some output\nexit status 2", true},
		{"  \n<output>\n</output>\n", true},
		{"[File: /repo/x.py (120 lines total)]\n1:import os", true},
		{"file1\n(Open file: /repo/x.py)\n(Current directory: /repo)\nbash-$", true},
		{`{"output":"ok\n","metadata":{"exit_code":0}}`, true},
		{"[read_file for 'src/app.ts'] Result:\nimport x from 'y';\n<environment_details>\n# VSCode Open Tabs\n</environment_details>", true},
		{"[execute_command for 'cd bff && npm test -- --grep 'holding''] Result:\nCommand executed.\nOutput:\n3 passing", true},
		{"[attempt_completion] Result:\nThe user has provided feedback on the results.", true},
		{"  [replace_in_file for 'a.go'] Result:", true},
		{"[read_file for 'src/app.ts'] Result: and then what?", false},
		{"[read_file for 'src/app.ts'] result:\nx", false},
		{"[1] Result:\nx", false},
		{"[TASK RESUMPTION] This task was interrupted 7 minutes ago.", false},
		{"[read_file for 'a.ts', 'b.ts'] Result:\n<files>\n</files>", true},
		{"[read_file for 2 files] Result:\nx", true},
		{"[note for ] Result:\nx", false},
		{"[note for me] Result: ok\nx", false},
		{"[execute_command for 'python - <<EOF\nprint(1)\nEOF'] Result:\nCommand executed.\nOutput:\n1", true},
		{"[attempt_completion] Result:\nThe user has provided feedback on the results.\n<feedback>\nAlso add a test.\n</feedback>", false},
		{"[ask_followup_question for 'Which port?'] Result:\n<answer>\n8080\n</answer>", false},
		{"[read_file for 'a.ts'] Result:\nThe user denied this operation and provided the following feedback:\n<feedback>\nRead b.ts\n</feedback>", false},
		{"", false},
		{"Please fix the failing test in tests/test_x.py", false},
		{"The exit code was 1, can you check why?", false},
		{"Thanks! Now also handle the <output> tag in the parser.", false},
		{"exit code: please tell me", false},
	} {
		if got := IsObservation(tc.text); got != tc.want {
			t.Errorf("IsObservation(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestCallText(t *testing.T) {
	for _, tc := range []struct {
		o    Observation
		want string
	}{
		{Observation{Tool: "execute_bash", Arguments: `{"command": "cd /x && pytest -q"}`}, "execute_bash(cd /x && pytest -q)"},
		{Observation{Tool: "str_replace_editor", Arguments: `{"command": "view", "path": "/w/src/a.c", "view_range": [10, 40]}`}, "str_replace_editor(view, /w/src/a.c, view_range=[10,40])"},
		{Observation{Tool: "str_replace_editor", Arguments: `{"command": "str_replace", "path": "/w/a.c", "old_str": "x\ny", "new_str": "z"}`}, "str_replace_editor(str_replace, /w/a.c, old_str=…, new_str=…)"},
		{Observation{Tool: "Read", Arguments: `{"file_path": "/r/x.go", "offset": 120, "limit": 40}`}, "Read(/r/x.go, offset=120, limit=40)"},
		{Observation{Tool: "Bash", Arguments: `{"command": "go test ./...\necho done", "timeout": null}`}, "Bash(go test ./... …)"},
		{Observation{Tool: "ls", Arguments: ``}, "ls()"},
		{Observation{Tool: "shell", Arguments: `{"command": ["bash", "-lc", "rg -n parse_args src"], "workdir": "/w"}`}, "shell(bash -lc rg -n parse_args src, workdir=/w)"},
		{Observation{Tool: "run", Arguments: `{"ids": [1, 2, 3]}`}, "run(ids=[1,2,3])"},
		{Observation{Tool: "run", Arguments: `not json`}, "run(not json)"},
		{Observation{Arguments: "cat <<'EOF' > x.py\nprint(1)\nEOF"}, "$ cat <<'EOF' > x.py …"},
		{Observation{}, ""},
		{Observation{Arguments: strings.Repeat("a", 300)}, "$ " + strings.Repeat("a", maxCallBytes) + "…"},
		{Observation{Tool: "str_replace_editor", Arguments: `{"command": "view", "path": "/workspace/ponylang__ponyc__0.1/src/libponyc/ast/parser.c", "view_range": [10, 40]}`}, "str_replace_editor(view, …/src/libponyc/ast/parser.c, view_range=[10,40])"},
	} {
		if got := callText(tc.o); got != tc.want {
			t.Errorf("callText(%+v) = %q, want %q", tc.o, got, tc.want)
		}
	}
}

func TestUnwrap(t *testing.T) {
	for _, tc := range []struct {
		out, body string
		exit      int
		ok        bool
	}{
		{"<returncode>2</returncode>\n<output>\nboom\n</output>", "boom", 2, true},
		{"<returncode>0</returncode>\n<warning>\ntoo long\n</warning><output_head>\na\n</output_head>\n<elided_chars>\n900 characters elided\n</elided_chars>\n<output_tail>\nz\n</output_tail>", "a\n… 900 characters elided\nz", 0, true},
		{"x\ny\n[The command completed with exit code 1.]", "x\ny", 1, true},
		{"Exit code: 3\nWall time: 1.0 seconds\nOutput:\nfail", "fail", 3, true},
		{"OBSERVATION:\nhello", "hello", 0, false},
		{"plain\ntext\n", "plain\ntext", 0, false},
		{"exit code -1", "", -1, true},
		{`{"output":"a.go\nb.go\n","metadata":{"exit_code":1,"duration_seconds":0.2}}`, "a.go\nb.go", 1, true},
		{`{"output":"x"}`, "x", 0, false},
		{"     1→package main\n<system-reminder>\nBe careful.\n</system-reminder>\n", "     1→package main", 0, false},
		{"out\n[Current working directory: /w]\n[Python interpreter: /usr/bin/python]\n[Command finished with exit code 2]", "out", 2, true},
		{"[1, 2, 3]", "[1, 2, 3]", 0, false},
		{"\x1b[31mFAILED\x1b[0m tests/a.py::test_b\n\x1b[1;32m1 passed\x1b[0m", "FAILED tests/a.py::test_b\n1 passed", 0, false},
	} {
		body, exit, ok := unwrap(tc.out)
		if body != tc.body || exit != tc.exit || ok != tc.ok {
			t.Errorf("unwrap(%q) = %q, %d, %v; want %q, %d, %v", tc.out, body, exit, ok, tc.body, tc.exit, tc.ok)
		}
	}
}

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		body    string
		exit    int
		hasExit bool
		isError bool
		want    string
	}{
		{"", 0, true, false, "exit 0, no output"},
		{"ok", 0, false, false, "ok"},
		{"boom", 0, false, true, "error"},
		{"..F\n==== 1 failed, 2 passed in 0.31s ====", 1, true, false, "exit 1, 1 failed, 2 passed"},
		{"2 failed, 9 passed, 1 error in 3.20s", 1, true, false, "exit 1, 2 failed, 9 passed, 1 error"},
		{"Ran 4 tests in 0.01s\n\nFAILED (failures=1, errors=2)", 1, true, false, "exit 1, FAILED (failures=1, errors=2)"},
		{"--- FAIL: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL", 1, true, false, "exit 1, 2 FAIL"},
		{"Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nKeyError: 'a'", 1, true, false, "exit 1, KeyError"},
		{"Tests:       2 failed, 10 passed, 12 total\nTime: 1.2 s", 1, true, false, "exit 1, 2 failed, 10 passed, 12 total"},
		{"test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured", 101, true, false, "exit 101, 3 passed; 1 failed"},
		{"  12 passing (40ms)\n  2 failing", 2, true, false, "exit 2, 2 failing"},
		{"src/a.ts(3,1): error TS2304\nFound 3 errors in 2 files.", 2, true, false, "exit 2, Found 3 errors in 2 files"},
		{"Traceback (most recent call last):\n  File \"x.py\", line 1\nshop.errors.UnknownRateError: no rate", 0, false, true, "error, shop.errors.UnknownRateError"},
	} {
		if got := outcome(tc.body, tc.exit, tc.hasExit, tc.isError); got != tc.want {
			t.Errorf("outcome(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

// bigView is a file view of about n lines of made-up code.
func bigView(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		switch i % 10 {
		case 0:
			b.WriteString(pad(i) + "\tdef handler_" + itoa(i) + "(self, request_" + itoa(i) + "):\n")
		case 5:
			b.WriteString(pad(i) + "\t        return self.backend.fetch(request.key, timeout=30)\n")
		default:
			b.WriteString(pad(i) + "\t        x = x + 1  # step\n")
		}
	}
	return b.String()
}

func pad(i int) string  { s := itoa(i); return strings.Repeat(" ", max(6-len(s), 0)) + s }
func itoa(i int) string { return strconv.Itoa(i) }

// TestStubSmall: outputs that fit whole, as the first line and the output
// without its wrapping.
func TestStubSmall(t *testing.T) {
	for _, tc := range []struct {
		o    Observation
		want string
	}{
		{Observation{Tool: "execute_bash", Arguments: `{"command":"ls"}`, Output: "a.py\nb.py\n"},
			"[swc:h1 execute_bash(ls) → ok]\na.py\nb.py"},
		{Observation{Arguments: "true", Output: "<returncode>0</returncode>\n<output>\n</output>"},
			"[swc:h1 $ true → exit 0, no output]"},
		{Observation{Arguments: "python t.py", Output: "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"t.py\", line 1, in <module>\nNameError: name 'x' is not defined\n</output>"},
			"[swc:h1 $ python t.py → exit 1, NameError]\nTraceback (most recent call last):\n  File \"t.py\", line 1, in <module>\nNameError: name 'x' is not defined"},
		{Observation{Tool: "Bash", Arguments: `{"command":"go test ./..."}`, Output: "--- FAIL: TestA (0.00s)\nFAIL\nFAIL\tgithub.com/x/y\t0.01s", IsError: true},
			"[swc:h1 Bash(go test ./...) → error, 1 FAIL]\n--- FAIL: TestA (0.00s)\nFAIL\nFAIL\tgithub.com/x/y\t0.01s"},
		{Observation{Tool: "Read", Arguments: `{"file_path":"/r/a.go"}`, Output: "     1→package a\n<system-reminder>\nconsider safety\n</system-reminder>"},
			"[swc:h1 Read(/r/a.go) → ok]\n     1→package a"},
		{Observation{Tool: "shell", Arguments: `{"command":["bash","-lc","make"]}`, Output: `{"output":"ok\n","metadata":{"exit_code":0,"duration_seconds":0.5}}`},
			"[swc:h1 shell(bash -lc make) → exit 0]\nok"},
	} {
		if got := Stub(tc.o, StubOptions{Handle: "h1"}); got != tc.want {
			t.Errorf("Stub(%+v)\n got %q\nwant %q", tc.o, got, tc.want)
		}
	}
}

// TestStubSame: an observation an earlier one gave byte for byte, of the
// same call, is stubbed as its first line (its own handle, the call, the
// outcome) and a line naming the earlier one's handle, within MaxTokens
// (that line whole or not at all); an empty output is its first line
// alone and one that fits is whole, as without Same, and so is a stub
// whose Same is its own handle.
func TestStubSame(t *testing.T) {
	o := Observation{Tool: "Bash", Arguments: `{"command":"git status"}`, Output: strings.Repeat("modified:   src/parser.c\n", 40)}
	if got, want := Stub(o, StubOptions{Handle: "h2", Same: "h1"}), "[swc:h2 Bash(git status) → ok]\n[the same output as swc:h1 above]"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	head := "[swc:h2 Bash(git status) → ok]"
	for limit := tokens.Count(head); limit < tokens.Count(head)+12; limit++ {
		got := Stub(o, StubOptions{Handle: "h2", Same: "h1", MaxTokens: limit})
		if tokens.Count(got) > limit || got != head && got != head+"\n[the same output as swc:h1 above]" {
			t.Errorf("MaxTokens %d: %q; want the first line, and the line naming h1 whole or not at all", limit, got)
		}
	}
	if got, want := Stub(o, StubOptions{Handle: "h2", Same: "h2"}), Stub(o, StubOptions{Handle: "h2"}); got != want {
		t.Errorf("Same naming the stub's own handle: %q, want the whole stub %q", got, want)
	}
	short := Observation{Tool: "Bash", Arguments: `{"command":"git status"}`, Output: "clean\n"}
	if got, want := Stub(short, StubOptions{Handle: "h2", Same: "h1"}), "[swc:h2 Bash(git status) → ok]\nclean"; got != want {
		t.Errorf("an output that fits whole: %q, want %q", got, want)
	}
	o.Output = ""
	if got, want := Stub(o, StubOptions{Handle: "h2", Same: "h1"}), Stub(o, StubOptions{Handle: "h2"}); got != want {
		t.Errorf("empty output: got %q, want %q", got, want)
	}
}

// TestStubOmitCall: with OmitCall the first line names the handle and
// the outcome alone, and the tokens it saves go to the output's lines.
func TestStubOmitCall(t *testing.T) {
	o := Observation{Tool: "execute_bash", Arguments: `{"command":"cd /workspace/ponylang__ponyc__0.1 && ls -l src/libponyc"}`, Output: "a.c\nb.c\n"}
	if got, want := Stub(o, StubOptions{Handle: "h1", OmitCall: true}), "[swc:h1 → ok]\na.c\nb.c"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var b strings.Builder
	for k := range 400 {
		fmt.Fprintf(&b, "src/libponyc/mod_%d.c:%d: warning: unused variable 'value_%d'\n", k, k*3, k)
	}
	o.Output = b.String()
	with, without := Stub(o, StubOptions{Handle: "h1"}), Stub(o, StubOptions{Handle: "h1", OmitCall: true})
	if n := tokens.Count(without); n > DefaultStubTokens {
		t.Errorf("%d tokens, over %d", n, DefaultStubTokens)
	}
	if strings.Count(without, "\n") <= strings.Count(with, "\n") {
		t.Errorf("without the call the stub keeps no more lines:\n%s\n---\n%s", with, without)
	}
}

func TestStub(t *testing.T) {
	tiny := Observation{Tool: "execute_bash", Arguments: `{"command":"ls"}`, Output: "a.py\nb.py\n"}
	if got, want := Stub(tiny, StubOptions{Handle: "h0123456789"}), "[swc:h0123456789 execute_bash(ls) → ok]\na.py\nb.py"; got != want {
		t.Errorf("tiny output: got %q, want %q", got, want)
	}
	empty := Observation{Arguments: "true", Output: "<returncode>0</returncode>\n<output>\n</output>"}
	if got, want := Stub(empty, StubOptions{Handle: "h1"}), "[swc:h1 $ true → exit 0, no output]"; got != want {
		t.Errorf("empty output: got %q, want %q", got, want)
	}
	big := Observation{Tool: "str_replace_editor", Arguments: `{"command":"view","path":"/w/app.py"}`, Output: bigView(2000)}
	for _, limit := range []int{0, 5, 40, 160, 400} {
		got := Stub(big, StubOptions{Handle: "h0123456789", MaxTokens: limit})
		want := limit
		if want == 0 {
			want = DefaultStubTokens
		}
		if n := tokens.Count(got); n > want {
			t.Errorf("MaxTokens %d: stub of %d tokens", limit, n)
		}
		if limit >= 40 && (!strings.HasPrefix(got, "[swc:h0123456789 str_replace_editor(view, /w/app.py) → ok]\n") || !strings.Contains(got, " lines]")) {
			t.Errorf("MaxTokens %d: no header or no elision marker:\n%s", limit, got)
		}
		if got != Stub(big, StubOptions{Handle: "h0123456789", MaxTokens: limit}) {
			t.Errorf("MaxTokens %d: not deterministic", limit)
		}
	}
	// Kept lines stand in their original order, whole but for the
	// padding of a view's line numbers; runs between lines the numbers
	// show as consecutive are bare markers.
	got := Stub(big, StubOptions{Handle: "h", MaxTokens: 300})
	if !strings.Contains(got, "\n"+bareMarker+"\n") {
		t.Errorf("no bare marker between view lines:\n%s", got)
	}
	last := 0
	for _, l := range strings.Split(got, "\n")[1:] {
		if strings.HasPrefix(l, "[…") || l == bareMarker {
			continue
		}
		if l != strings.TrimLeft(l, " ") {
			t.Fatalf("line %q keeps its number's padding", l)
		}
		if !strings.Contains(big.Output, l+"\n") {
			t.Fatalf("line %q is not an output line", l)
		}
		at := strings.Index(big.Output, l+"\n")
		if at < last {
			t.Fatalf("line %q out of order", l)
		}
		last = at
	}
	// Known identifiers are not what a stub spends its tokens on; Focus is.
	known := func(id string) bool { return strings.HasSuffix(id, "00") }
	got = Stub(big, StubOptions{Handle: "h", Known: known})
	if strings.Contains(got, "00(self") || !strings.Contains(got, "def handler_") {
		t.Errorf("stub keeps definitions of Known names, or none:\n%s", got)
	}
	got = Stub(big, StubOptions{Handle: "h", Known: known, Focus: func(id string) bool { return id == "handler_1370" }})
	if !strings.Contains(got, "\n1370\tdef handler_1370(self, request_1370):") {
		t.Errorf("stub misses the Focus identifier's line:\n%s", got)
	}
}

// TestStubKnownFocus: a Focus identifier the request lacks opens the
// Focus round; one it already holds (Known) is worth a little, as context
// for lines that hold nothing new, and no line is kept for it over lines
// that bring identifiers the request lacks.
func TestStubKnownFocus(t *testing.T) {
	big := Observation{Tool: "view", Output: bigView(2000)}
	const line = "\n1370\tdef handler_1370(self, request_1370):"
	focus := func(id string) bool { return id == "handler_1370" }
	tests := []struct {
		name  string
		known func(string) bool
		kept  bool
	}{
		{"focus not known", func(string) bool { return false }, true},
		{"focus known, others new", func(id string) bool { return id == "handler_1370" }, false},
		{"focus known, nothing new", func(string) bool { return true }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Stub(big, StubOptions{Handle: "h", Known: tt.known, Focus: focus})
			if strings.Contains(got, line) != tt.kept {
				t.Errorf("line 1370 kept %t, want %t:\n%s", !tt.kept, tt.kept, got)
			}
		})
	}
}

// TestStubLongLine: a line longer than maxLineBytes is cut around its most
// valuable identifier, a view's line number kept; a very long one (a
// one-line JSON document) is cut into pieces, of which the stub keeps
// those holding new identifiers.
func TestStubLongLine(t *testing.T) {
	long := "   512\t" + strings.Repeat("value = value + 1; ", 8) + "return compute_total_price(cart)" + strings.Repeat(" + 0", 10)
	o := Observation{Output: long + "\n" + strings.Repeat("        pass\n", 400)}
	got := Stub(o, StubOptions{Handle: "h", MaxTokens: 400})
	i := strings.Index(got, "\n512\t…")
	if i < 0 || !strings.Contains(got[i:], "compute_total_price") {
		t.Fatalf("long line not cut around its identifier:\n%s", got)
	}
	line, _, _ := strings.Cut(got[i:], "\n")
	if len(line) > maxLineBytes+20 {
		t.Errorf("cut line of %d bytes", len(line))
	}

	var doc strings.Builder
	doc.WriteString(`{"items":[`)
	for k := range 60 {
		if k > 0 {
			doc.WriteString(",")
		}
		doc.WriteString(`{"id":` + strconv.Itoa(1000+k) + `,"name":"x","state":"ok"}`)
	}
	doc.WriteString(`],"next_page_token":"abc"}`)
	got = Stub(Observation{Tool: "fetch", Output: doc.String()}, StubOptions{Handle: "h", Known: func(id string) bool { return id != "1042" && id != "next_page_token" }})
	if n := tokens.Count(got); n > DefaultStubTokens {
		t.Errorf("stub of %d tokens", n)
	}
	if !strings.Contains(got, "1042") || !strings.Contains(got, "next_page_token") {
		t.Errorf("pieces with new identifiers not kept:\n%s", got)
	}
	for _, l := range strings.Split(got, "\n")[1:] {
		if len(l) > maxLineBytes+2*len("…") {
			t.Errorf("piece of %d bytes: %q", len(l), l)
		}
	}
}

// TestStubProgressLine: of a line a terminal rewrote with carriage
// returns, the stub keeps what it showed last.
func TestStubProgressLine(t *testing.T) {
	out := "Downloading 10%\rDownloading 50%\rSaved /tmp/pkg_cache/wheel_store.whl\n" + strings.Repeat("        pass\n", 300)
	got := Stub(Observation{Output: out}, StubOptions{Handle: "h"})
	if !strings.Contains(got, "\nSaved /tmp/pkg_cache/wheel_store.whl\n") || strings.Contains(got, "10%") {
		t.Errorf("progress line not kept as shown last:\n%s", got)
	}
}

func TestStubErrorsFirst(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		b.WriteString("building module_" + itoa(i) + " ok\n")
	}
	b.WriteString("src/engine/core.c:418:12: error: 'ctx_t' has no member named 'flagz'\n")
	for i := range 300 {
		b.WriteString("linking object_" + itoa(i) + ".o\n")
	}
	got := Stub(Observation{Tool: "Bash", Arguments: `{"command":"make"}`, Output: b.String(), IsError: true}, StubOptions{Handle: "h"})
	if !strings.HasPrefix(got, "[swc:h Bash(make) → error]") || !strings.Contains(got, "\nsrc/engine/core.c:418:12: error: 'ctx_t' has no member named 'flagz'\n") {
		t.Errorf("error line not kept:\n%s", got)
	}
}

// accounted returns how many output lines a stub accounts for: its lines
// after the first, a marker for as many as it names, a bare marker for
// as many as the line numbers around it skip (-1 when they say none).
func accounted(stub string) int {
	n := 0
	lines := strings.Split(stub, "\n")[1:]
	for i, l := range lines {
		if l == bareMarker {
			// The line numbers around a bare marker say how many it stands for.
			if i == 0 || i+1 == len(lines) {
				return -1
			}
			prev, next := viewNumber(lines[i-1]), viewNumber(lines[i+1])
			if prev < 0 || next <= prev+1 {
				return -1
			}
			n += int(next - prev - 1)
			continue
		}
		if rest, ok := strings.CutPrefix(l, "[…"); ok {
			k, _ := strconv.Atoi(strings.Fields(rest)[0])
			n += k
			continue
		}
		n++
	}
	return n
}

// TestStubHugeOutput: of an output over maxReadBytes a stub reads the
// ends only, counts the middle among the omitted lines, and stays within
// its budget.
func TestStubHugeOutput(t *testing.T) {
	var b strings.Builder
	lines := 0
	for b.Len() < 3*maxReadBytes {
		fmt.Fprintf(&b, "%d: processed record_%d from shard_%d\n", lines, lines, lines%7)
		lines++
	}
	o := Observation{Tool: "Bash", Arguments: `{"command":"cat records.log"}`, Output: b.String()}
	got := Stub(o, StubOptions{Handle: "h"})
	if n := tokens.Count(got); n > DefaultStubTokens {
		t.Errorf("stub of %d tokens", n)
	}
	if n := accounted(got); n != lines {
		t.Errorf("stub accounts for %d lines of %d:\n%s", n, lines, got)
	}
}

// TestStubInnermostFrame: of a long Python traceback, a small stub keeps
// the innermost frame — where the error was raised, what the agent opens
// next — whole, path and line number, with the exception; the frames
// before it give way.
func TestStubInnermostFrame(t *testing.T) {
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):\n")
	for k := range 10 {
		fmt.Fprintf(&b, "  File \"/pydicom__pydicom/pydicom/dataset_helpers/module_%02d.py\", line %d, in convert_pixel_data_step_%02d\n", k, 1500+k, k)
		fmt.Fprintf(&b, "    result = convert_pixel_data_step_%02d(self, handler)\n", k+1)
	}
	inner := `  File "/pydicom__pydicom/pydicom/pixel_data_handlers/numpy_handler.py", line 293, in get_pixeldata`
	b.WriteString(inner + "\n    raise AttributeError(\n")
	b.WriteString("AttributeError: Unable to convert the pixel data as the following required elements are missing from the dataset: PixelRepresentation\n")
	got := Stub(Observation{Arguments: "python reproduce_bug.py", Output: b.String()}, StubOptions{Handle: "h", MaxTokens: 120})
	if !strings.Contains(got, inner+"\n") {
		t.Errorf("the innermost frame is not kept whole:\n%s", got)
	}
	if !strings.Contains(got, "AttributeError: Unable to convert") {
		t.Errorf("the exception is not kept:\n%s", got)
	}
}

// TestStubJavaFrame: a JVM stack trace's frames longer than a stub's line
// go whole (the class, the file and its line), not cut around a name.
func TestStubJavaFrame(t *testing.T) {
	var b strings.Builder
	b.WriteString(`Exception in thread "main" com.fasterxml.jackson.databind.exc.InvalidFormatException: Cannot deserialize value` + "\n")
	frame := "\tat com.fasterxml.jackson.databind.deser.std.StdDeserializer._parseIntPrimitive(StdDeserializer.java:1123)"
	b.WriteString(frame + "\n")
	for k := range 30 {
		fmt.Fprintf(&b, "\tat com.example.orders.pipeline.stage%02d.OrderStageProcessor.process(OrderStageProcessor.java:%d)\n", k, 200+k)
	}
	got := Stub(Observation{Arguments: "mvn -q test", Output: b.String()}, StubOptions{Handle: "h", MaxTokens: 160})
	if !strings.Contains(got, frame+"\n") {
		t.Errorf("the first frame is not kept whole:\n%s", got)
	}
}
