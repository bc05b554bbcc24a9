package preserve

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc/locomo"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestWriteGolden(t *testing.T) {
	convs, recs := loadFixture(t)
	r, err := FromExternal(convs, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		file  string
		write func(*Report, *bytes.Buffer) error
	}{
		{"report.txt.golden", func(r *Report, b *bytes.Buffer) error { return r.WriteText(b) }},
		{"report.md.golden", func(r *Report, b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
		{"summary.md.golden", func(r *Report, b *bytes.Buffer) error { return r.WriteSummary(b, true) }},
	} {
		var b bytes.Buffer
		if err := tt.write(r, &b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", tt.file)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs (go test ./preserve -run Golden -update to accept):\n%s", tt.file, b.String())
		}
	}
}

func BenchmarkAnalyze(b *testing.B) {
	b.Run("fixture", func(b *testing.B) {
		convs, recs := loadFixture(b)
		for b.Loop() {
			if _, err := FromExternal(convs, recs); err != nil {
				b.Fatal(err)
			}
		}
	})
	if _, err := os.Stat(locomoPath); err == nil {
		b.Run("locomo10", func(b *testing.B) {
			convs, _, err := locomo.LoadFile(locomoPath)
			if err != nil {
				b.Fatal(err)
			}
			contexts := compressAll(b, convs)
			for b.Loop() {
				Analyze(convs, contexts)
			}
		})
	}
}
