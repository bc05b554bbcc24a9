package trajectory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

// TestBodiesTornLine: a run killed while writing a body leaves a torn
// last line; reopening cuts it off and appends after the whole lines, a
// body goes on one line whatever its layout, and one that is no JSON is
// an error naming the request.
func TestBodiesTornLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, BodiesFile)
	whole := `{"trajectory":"a","format":"openai","budget":10,"condition":"swc","request":0,"body":{}}` + "\n"
	if err := os.WriteFile(path, []byte(whole+`{"trajectory":"a","for`), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := OpenBodies(dir)
	if err != nil {
		t.Fatal(err)
	}
	row := Row{Trajectory: "a", Format: "openai", Budget: 10, Condition: "swc", Request: 1}
	if err := b.Write(row, []byte("{\n  \"messages\": [\"<x>\"]\n}\n")); err != nil {
		t.Fatal(err)
	}
	row.Request, row.Refused = 2, "over the budget"
	if err := b.Write(row, nil); err != nil {
		t.Fatal(err)
	}
	row.Request, row.Refused = 3, ""
	if err := b.Write(row, []byte("{oops")); err == nil || !strings.Contains(err.Error(), "request 3") {
		t.Errorf("a body that is no JSON: %v, want an error naming the request", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := whole +
		`{"trajectory":"a","format":"openai","budget":10,"condition":"swc","request":1,"body":{"messages":["<x>"]}}` + "\n" +
		`{"trajectory":"a","format":"openai","budget":10,"condition":"swc","request":2,"refused":"over the budget"}` + "\n"
	if string(got) != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
}

// TestPick: names and positions from 0, in the order given, each once;
// an unknown one is ENOTFOUND naming those there are.
func TestPick(t *testing.T) {
	trajs := []Trajectory{{Name: "a"}, {Name: "b"}, {Name: "7"}}
	for _, tc := range []struct {
		names, want string
	}{
		{"", "a,b,7"},
		{"b", "b"},
		{"b, 0,b", "b,a"},
		{"7", "7"}, // a name before a position
		{"2", "7"},
	} {
		got, err := Pick(trajs, tc.names)
		if err != nil {
			t.Fatalf("%q: %v", tc.names, err)
		}
		var names []string
		for _, tr := range got {
			names = append(names, tr.Name)
		}
		if strings.Join(names, ",") != tc.want {
			t.Errorf("%q: %v, want %s", tc.names, names, tc.want)
		}
	}
	_, err := Pick(trajs, "a,c")
	var e *swc.Error
	if !errors.As(err, &e) || e.Code != swc.ENOTFOUND || !strings.Contains(err.Error(), `"c"`) || !strings.Contains(err.Error(), "0–2: a, b, 7") {
		t.Errorf("unknown name: %v, want ENOTFOUND naming it and those there are", err)
	}
	if _, err := Pick(trajs, " , "); !errors.As(err, &e) || e.Code != swc.EINVALID {
		t.Errorf("no name: %v, want EINVALID", err)
	}
}

// TestLastLineEnd: the end of the last whole line is found however far
// from the file's end it is (a torn body of hundreds of kilobytes), and a
// file with no line break, or none at all, has none.
func TestLastLineEnd(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, data string
		want       int
	}{
		{"whole lines", "a\nbb\n", 5},
		{"a torn line far back", "a\n" + strings.Repeat("x", 200<<10), 2},
		{"no line break", strings.Repeat("y", 70<<10), 0},
		{"empty", "", 0},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := lastLineEnd(path); err != nil || got != tc.want {
			t.Errorf("%s: %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
	if got, err := lastLineEnd(filepath.Join(dir, "none")); err != nil || got != 0 {
		t.Errorf("a missing file: %d, %v", got, err)
	}
}
