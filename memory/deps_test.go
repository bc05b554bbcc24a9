package memory

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNoAdapters: the one import an agent needs reaches no storage,
// service or provider adapter and no module beyond the tokenizer's and
// jsontext (chat's request parser; encoding/json/jsontext once
// encoding/json/v2 leaves GOEXPERIMENT). What a program built on memory
// links: 18.8 MB, not the 24.9 MB it was with the SQLite driver. Imports are read from the non-test sources of the
// packages of this module memory reaches.
func TestNoAdapters(t *testing.T) {
	const module = "github.com/swcmem/swc"
	denied := []string{"sqlite", "postgres", "http", "jobs", "sleep", "anthropic", "openai", "retry", "locomo", "bench", "report", "client"}
	allowed := []string{"github.com/tiktoken-go/tokenizer", "github.com/dlclark/regexp2", "github.com/go-json-experiment/json/jsontext"}
	seen := map[string]bool{}
	var visit func(pkg, from string)
	visit = func(pkg, from string) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		if slices.Contains(denied, rel) {
			t.Errorf("memory reaches %s (imported by %s)", pkg, from)
			return
		}
		dir := filepath.Join("..", filepath.FromSlash(rel))
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no sources for %s in %s", pkg, dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range ast.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				switch {
				case path == module || strings.HasPrefix(path, module+"/"):
					visit(path, pkg)
				case !strings.Contains(strings.Split(path, "/")[0], "."): // the standard library
				case !slices.ContainsFunc(allowed, func(m string) bool { return path == m || strings.HasPrefix(path, m+"/") }):
					t.Errorf("memory reaches module %s (imported by %s)", path, pkg)
				}
			}
		}
	}
	visit(module+"/memory", "the test")
}
