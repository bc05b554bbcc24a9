package observe

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc/tokens"
)

// benchOutput returns an output of about n tokens made of the testdata
// outputs, repeated with their numbers and names made distinct per copy.
func benchOutput(tb testing.TB, n int) string {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "*.in"))
	var parts []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		parts = append(parts, string(raw))
	}
	var b strings.Builder
	for copy := 0; tokens.Count(b.String()) < n; copy++ {
		r := strings.NewReplacer("_", "_"+strconv.Itoa(copy)+"_", ".py", strconv.Itoa(copy)+".py")
		b.WriteString(r.Replace(parts[copy%len(parts)]))
	}
	return tokens.Truncate(b.String(), n)
}

func BenchmarkStub(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		o := Observation{Tool: "execute_bash", Arguments: `{"command": "cat -n src/app.py"}`, Output: benchOutput(b, n)}
		opt := StubOptions{Handle: Handle("call_1", o.Output), Known: func(id string) bool { return len(id)%7 == 0 }}
		b.Run(strconv.Itoa(n)+"tokens", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(o.Output)))
			for b.Loop() {
				Stub(o, opt)
			}
		})
	}
}

func BenchmarkIdentifiers(b *testing.B) {
	text := benchOutput(b, 20000)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Identifiers(text)
	}
}
