package observe

import (
	"strings"
	"testing"

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
