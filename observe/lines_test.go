package observe

import (
	"strings"
	"testing"

	"github.com/swcmem/swc/tokens"
)

func TestDiagnostic(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int
	}{
		{"Traceback (most recent call last):", diagLine},
		{`  File "/a/b.py", line 3, in f`, diagLine},
		{"E       AssertionError: assert 1 == 2", diagLine},
		{"    at Object.<anonymous> (src/app.test.js:12:5)", diagLine},
		{"KeyError: 'u'", diagHead},
		{"shop.errors.UnknownRateError: no rate", diagHead},
		{"FAILED tests/test_a.py::test_b - KeyError", diagHead},
		{"--- FAIL: TestParse (0.00s)", diagHead},
		{"src/x.c:41:7: error: unknown type name 'foo_t'", diagHead},
		{"error[E0308]: mismatched types", diagHead},
		{"make: *** [Makefile:192: build] Error 2", diagHead},
		{"panic: runtime error: index out of range", diagHead},
		{"tests/test_units.py::test_parse_duration FAILED", diagHead},
		{"test_merge (tests.test_cfg.MergeTest) ... FAIL", diagHead},
		{"  12:5  error  'x' is not defined  no-undef", diagHead},
		{"    parse_test.go:42: got 1, want 2", diagLine},
		{"  --> src/main.rs:3:5", diagLine},
		{"[ERROR] /w/src/main/java/com/x/Foo.java:[42,17] cannot find symbol", diagHead},
		{`Exception in thread "main" java.lang.NullPointerException: name`, diagHead},
		{"Caused by: java.lang.IllegalStateException: closed", diagHead},
		{"  ● Parser › reads a header", diagHead},
		{"\tat com.x.Foo.bar(Foo.java:42)", diagLine},
		{"[INFO] BUILD SUCCESS", diagNone},
		{"tests/test_units.py::test_convert_1 PASSED", diagNone},
		{"    except ValueError:", diagNone},
		{"        raise NotSupportedError(", diagNone},
		{"class BadHeaderError(ValueError):", diagNone},
		{"all 12 tests passed", diagNone},
		{"", diagNone},
	} {
		if got := diagnostic(tc.line); got != tc.want {
			t.Errorf("diagnostic(%q) = %d, want %d", tc.line, got, tc.want)
		}
	}
}

func TestDefinition(t *testing.T) {
	for _, tc := range []struct {
		code string
		want bool
	}{
		{"def get_prep_value(self, value):", true},
		{"    async def fetch(self):", true},
		{"class LRUCache:", true},
		{"func (s *Server) handle(w http.ResponseWriter) {", true},
		{"pub fn parse(input: &str) -> Result<Ast> {", true},
		{"static ast_t* make_pattern_type(pass_opt_t* opt, ast_t* pattern)", true},
		{"export function useLedger(id: string) {", true},
		{"    return compute(x)", false},
		{"if (x) {", false},
		{"int count(void);", false},
		{"    x = f(y)", false},
	} {
		if got := definition(tc.code); got != tc.want {
			t.Errorf("definition(%q) = %v, want %v", tc.code, got, tc.want)
		}
	}
}

func TestViewPrefix(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int
	}{
		{"   123\tdef f():", 7},
		{"     7→import os", 6 + len("→")},
		{"123:def f():", 4},
		{"123:", 4},
		{"12:30:45 ERROR timeout", 0},
		{" 123:x", 0},
		{"   123", 0},
		{"\tx = 1", 0},
		{"", 0},
	} {
		if got := viewPrefix(tc.line); got != tc.want {
			t.Errorf("viewPrefix(%q) = %d, want %d", tc.line, got, tc.want)
		}
	}
}

func TestLocationPrefix(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int
	}{
		{"internal/server/router.go:88:func (s *Server) handle() {", len("internal/server/router.go:88:")},
		{"src/parse.c:12:5: error: expected ';'", len("src/parse.c:12:5:")},
		{"setup.py:7:    name='x',", len("setup.py:7:")},
		{"router.go:88", 0},
		{"note: see x.go", 0},
		{"12:30:45 ERROR timeout", 0},
		{"ERROR:root:failed", 0},
		{"  a.py:3: x", 0},
		{"", 0},
	} {
		if got := locationPrefix(tc.line); got != tc.want {
			t.Errorf("locationPrefix(%q) = %d, want %d", tc.line, got, tc.want)
		}
	}
}

// TestEstimate: the estimate stays near the tokenizer's count on the
// testdata outputs' lines (it only ranks lines; chosen ones are counted).
func TestEstimate(t *testing.T) {
	var est, exact, lines int
	for _, name := range []string{"view", "grep", "pytest", "diff", "json", "traceback"} {
		for _, l := range strings.Split(readTestdata(t, name+".in"), "\n") {
			est += estimate(l)
			exact += tokens.Count(l)
			lines++
		}
	}
	if d := float64(est-exact) / float64(exact); d < -0.25 || d > 0.25 {
		t.Errorf("estimate %d against %d tokens over %d lines: off by %.0f%%", est, exact, lines, 100*d)
	}
}
