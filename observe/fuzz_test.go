package observe

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/swcmem/swc/tokens"
)

// FuzzStub: whatever the output and the limit, a stub is within the limit,
// the same twice, and opens with its handle when the limit leaves room.
func FuzzStub(f *testing.F) {
	f.Add("<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\n  File \"a.py\", line 3\nKeyError: 'x'\n</output>", 40, false)
	f.Add(strings.Repeat("src/a.go:12:\tfoo_bar(baz)\n", 300), 160, true)
	f.Add(strings.Repeat("{\"k\":\"v\",", 500), 60, false)
	f.Add("\xff\xfe\x00 invalid \xe2\x80 utf8 …\r\n\r\n  \t", 3, true)
	f.Add("", 0, false)
	f.Fuzz(func(t *testing.T, output string, limit int, isError bool) {
		limit = limit%400 + 1
		if limit <= 0 {
			limit += 400
		}
		o := Observation{Tool: "Bash", Arguments: `{"command":"x"}`, Output: output, IsError: isError}
		opt := StubOptions{Handle: "h0123456789", MaxTokens: limit, Known: func(id string) bool { return len(id)%3 == 0 }}
		got := Stub(o, opt)
		if n := tokens.Count(got); n > limit {
			t.Fatalf("stub of %d tokens > %d:\n%s", n, limit, got)
		}
		if Stub(o, opt) != got {
			t.Fatal("not deterministic")
		}
		if limit >= 20 && !strings.HasPrefix(got, "[swc:h0123456789 Bash(x) → ") {
			t.Fatalf("no header:\n%s", got)
		}
	})
}

// FuzzBrief: whatever the output, Brief does not panic, gives valid
// UTF-8 for valid UTF-8, stays near its bytes and gives the same twice.
func FuzzBrief(f *testing.F) {
	f.Add("[read_file for 'a.ts'] Result:\nexport const f = async () => {\n}\n<environment_details>\n</environment_details>", 120)
	f.Add("a.ts\nb.ts\nsrc/\n", 20)
	f.Add("src/a.py:12:def f():\nsrc/a.py-13-  x\n", 40)
	f.Add("ERROR:\n", 8)
	f.Add("\xff\xfe def \xe2\x80(\n- ..\n:1:", 3)
	f.Fuzz(func(t *testing.T, output string, n int) {
		n = n%300 + 1
		if n <= 0 {
			n += 300
		}
		o := Observation{Output: output}
		got := Brief(o, n)
		if got != Brief(o, n) {
			t.Fatal("not deterministic")
		}
		if utf8.ValidString(output) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		// The outcome before the detail (exit, summary, exception, line
		// count) is at most about 120 bytes; the detail fits n, a
		// headline at least 24.
		if len(got) > 120+max(n, 24)+len("…") {
			t.Fatalf("%d bytes for n = %d: %q", len(got), n, got)
		}
	})
}
