package preserve

import (
	"bytes"
	"github.com/swcmem/swc/internal/golden"
	"os"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc/locomo"
)

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
		golden.Check(t, filepath.Join("testdata", tt.file), b.Bytes())
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
