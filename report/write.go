package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/swcmem/swc/bench"
)

// Files are the names WriteAll writes in its directory.
const (
	CSVFile      = "summary.csv"
	MarkdownFile = "report.md"
	HTMLFile     = "report.html"
)

// WriteAll renders s and writes summary.csv, report.md and report.html
// into dir (created if missing). Everything is rendered before anything is
// written, and each file is replaced atomically (temporary file, then
// rename), so a reader never sees a partial file. It returns the first
// rendering or file-system error.
func WriteAll(dir string, s *bench.Summary) error {
	renders := []struct {
		name string
		fn   func(io.Writer, *bench.Summary) error
	}{{CSVFile, CSV}, {MarkdownFile, Markdown}, {HTMLFile, HTML}}
	out := make([][]byte, len(renders))
	for i, r := range renders {
		var buf bytes.Buffer
		if err := r.fn(&buf, s); err != nil {
			return err
		}
		out[i] = buf.Bytes()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for i, r := range renders {
		if err := bench.WriteFileAtomic(filepath.Join(dir, r.name), out[i]); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}
