package templcheck

import (
	"bytes"
	"go/format"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/a-h/templ/generator"
	parser "github.com/a-h/templ/parser/v2"

	"github.com/swcmem/swc/internal/golden"
)

// root is the module root, relative to this package.
const root = "../.."

// TestGenerated generates every .templ file of the module and compares
// the code with the committed _templ.go beside it (go test -update
// rewrites them).
func TestGenerated(t *testing.T) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".templ") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no .templ files in the module")
	}
	for _, path := range files {
		rel, err := filepath.Rel(root, path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := generate(path, filepath.ToSlash(rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		golden.Check(t, strings.TrimSuffix(path, ".templ")+"_templ.go", got)
	}
}

// generate returns the formatted Go code templ generates for the template
// at path, naming it display (its path from the module root) in the
// positions of render errors, as `templ generate` does. It returns the
// parse, generation or formatting error.
func generate(path, display string) ([]byte, error) {
	tf, err := parser.Parse(path)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := generator.Generate(tf, &b, generator.WithFileName(display), generator.WithVersion(templ.Version())); err != nil {
		return nil, err
	}
	return format.Source(b.Bytes())
}
