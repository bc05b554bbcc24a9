package tokens

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
)

func TestCountLinesExact(t *testing.T) {
	long := strings.Repeat("Caroline: I went to a LGBTQ support group yesterday!\n", 8)
	cases := []string{
		long,
		long + "\n\n[Session 2 — 1:14 pm on 25 May, 2023]\nMelanie: Great.\n",
		long + "\n  \n\nindented\n \tx\n",
		strings.ReplaceAll(long, "\n", "\r\n"),
		long + "\n…\n\u00a0nbsp line\n\u2003em line\n'tis\n's\n123\n456\n",
		long + "!!!\n\n\n???\n...\nok",
		"no newline " + strings.Repeat("word ", 100),
	}
	for _, c := range locomoConversations(t) {
		cases = append(cases, swc.RenderConversation(c))
	}
	for i, s := range cases {
		if got, want := Count(s), libraryCount(t, s); got != want {
			t.Errorf("case %d: Count %d, encoder on the whole text %d", i, got, want)
		}
	}
}

// TestCountCachedComposite: a long multi-line text is counted exactly from
// its remembered lines and is not itself remembered (a rendered context is
// new every time; its lines are not).
func TestCountCachedComposite(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "Caroline: line %d of a rendered context, about the adoption agency.\n", i)
	}
	s := b.String()
	if got, want := CountCached(s), libraryCount(t, s); got != want {
		t.Fatalf("CountCached = %d, the encoder counts %d", got, want)
	}
	if _, ok := countMemo.Get(s); ok {
		t.Errorf("the whole text was remembered")
	}
	first := s[:strings.IndexByte(s, '\n')+1]
	if _, ok := countMemo.Get(first); !ok {
		t.Errorf("its first line was not remembered")
	}
	short := "one short text"
	CountCached(short)
	if n, ok := countMemo.Get(short); !ok || n != countRaw(short) {
		t.Errorf("a short text: remembered %v, count %d", ok, n)
	}
}

// TestTurnCount: a turn's cost is the count of its line after a newline,
// counted from the line's own count where the line starts with printable
// ASCII — on every LoCoMo turn and on lines starting otherwise.
func TestTurnCount(t *testing.T) {
	turns := []swc.Turn{
		{Speaker: "Mel", Text: "hi!"}, {Speaker: "", Text: "no speaker"}, {Speaker: " Mel", Text: "a space first"},
		{Speaker: "Émile", Text: "accent first"}, {Speaker: "\nMel", Text: "a newline first"}, {Speaker: "Mel", Text: ""},
		{Speaker: "Mel", Text: "look", Image: &swc.Image{Caption: "a dog"}},
	}
	for _, c := range locomoConversations(t) {
		for _, s := range c.Sessions {
			turns = append(turns, s.Turns...)
		}
	}
	for _, tu := range turns {
		if got, want := Turn(tu), libraryCount(t, "\n"+swc.RenderTurn(tu)); got != want {
			t.Errorf("Turn(%+v) = %d, want %d", tu, got, want)
		}
	}
}

// locomoConversations returns LoCoMo's conversations from beside the
// checkout, or none (saying so) when the file is not there.
func locomoConversations(t testing.TB) []*swc.Conversation {
	path := filepath.Join("..", "..", "shared", "data", "locomo", "locomo10.json")
	if _, err := os.Stat(path); err != nil {
		t.Logf("LoCoMo not found at %s: the other cases only", path)
		return nil
	}
	convs, _, err := locomo.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return convs
}
