package swc_test

import (
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

func TestOmissionMarker(t *testing.T) {
	tests := []struct {
		first, last int
		want        string
	}{
		{1, 1, "[Session 2 omitted]"},
		{1, 2, "[Sessions 2–3 omitted]"},
		{0, 9, "[Sessions 1–10 omitted]"},
	}
	for _, tt := range tests {
		if got := swc.OmissionMarker(tt.first, tt.last); got != tt.want {
			t.Errorf("OmissionMarker(%d, %d) = %q, want %q", tt.first, tt.last, got, tt.want)
		}
	}
}

// TestRenderMarksOmissions: sessions missing between blocks are marked,
// numbered from 1 as headers are; adjacent blocks, a running summary that
// covers the gap, and a lone block get no marker.
func TestRenderMarksOmissions(t *testing.T) {
	ses := make([]swc.Session, 6)
	for i := range ses {
		ses[i] = swc.Session{Index: i, DateText: "d", Turns: []swc.Turn{{Speaker: "A", Text: "hi"}}}
	}
	block := func(i int) swc.Block { return swc.Block{Session: &ses[i], Turns: ses[i].Turns} }
	tests := []struct {
		name   string
		blocks []swc.Block
		want   []string
		absent bool
	}{
		{"gap of two", []swc.Block{block(0), block(3), block(4)}, []string{"[Session 1 — d]\nA: hi\n\n[Sessions 2–3 omitted]\n\n[Session 4 — d]"}, false},
		{"gap of one", []swc.Block{block(0), block(2)}, []string{"\n\n[Session 2 omitted]\n\n"}, false},
		{"gists count as kept", []swc.Block{block(0), {Session: &ses[1], Gist: "g"}, block(2)}, nil, true},
		{"summary covers", []swc.Block{{First: 0, Last: 3, Gist: "s"}, block(4)}, nil, true},
		{"gap after a summary", []swc.Block{{First: 0, Last: 1, Gist: "s"}, block(5)}, []string{"[Sessions 3–5 omitted]"}, false},
		{"one block", []swc.Block{block(3)}, nil, true},
	}
	for _, tt := range tests {
		got := swc.Render(tt.blocks)
		if tt.absent && strings.Contains(got, "omitted]") {
			t.Errorf("%s: unexpected marker in %q", tt.name, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tt.name, got, w)
			}
		}
	}
}
