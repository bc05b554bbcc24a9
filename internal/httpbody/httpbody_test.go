package httpbody

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAll: a body read whole whatever its announced length says
// (none, exact, shorter or longer than it), read in one buffer of that
// length when it is right.
func TestReadAll(t *testing.T) {
	body := strings.Repeat("0123456789", 100_000)
	for _, tc := range []struct {
		name string
		size int64
	}{
		{"unknown", -1}, {"none", 0}, {"exact", int64(len(body))}, {"announced shorter", 1000}, {"announced longer", int64(len(body)) * 2},
	} {
		// HalfReader: the reads come in pieces, as from a connection.
		got, err := ReadAll(iotest.HalfReader(strings.NewReader(body)), tc.size)
		if err != nil || string(got) != body {
			t.Errorf("%s: %d bytes, %v", tc.name, len(got), err)
		}
		if tc.name == "exact" && cap(got) != len(body)+1 {
			t.Errorf("exact: a buffer of %d for %d bytes", cap(got), len(body))
		}
	}
	// A body announced as 32 MB that sends one byte: no room taken for
	// the 32 MB it never sends.
	got, err := ReadAll(strings.NewReader("x"), 32<<20)
	if err != nil || string(got) != "x" || cap(got) > firstRead {
		t.Errorf("announced 32 MB, sent 1 byte: %q, a buffer of %d, %v", got, cap(got), err)
	}
	// One that sends 1 MB of them: a buffer of at most 8 MB.
	got, err = ReadAll(strings.NewReader(body), 32<<20)
	if err != nil || string(got) != body || cap(got) > 8*len(body) {
		t.Errorf("announced 32 MB, sent %d bytes: a buffer of %d, %v", len(body), cap(got), err)
	}
	if _, err := ReadAll(iotest.ErrReader(bytes.ErrTooLarge), 10); err != bytes.ErrTooLarge {
		t.Errorf("a read error: %v", err)
	}
}

// TestTap: the body read through a tap is the body; keep gets it whole
// once, at its end, unless it was longer than max.
func TestTap(t *testing.T) {
	body := strings.Repeat("x", 10_000)
	for _, max := range []int{10_000, 9_999} {
		var kept []string
		rc := Tap(io.NopCloser(iotest.HalfReader(strings.NewReader(body))), max, func(b []byte) { kept = append(kept, string(b)) })
		got, err := io.ReadAll(rc)
		if err != nil || string(got) != body {
			t.Fatalf("max %d: read %d bytes, %v", max, len(got), err)
		}
		rc.Close()
		if want := max >= len(body); len(kept) != map[bool]int{true: 1, false: 0}[want] || want && kept[0] != body {
			t.Errorf("max %d: kept %d times", max, len(kept))
		}
	}
}
