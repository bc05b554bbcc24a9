package bench

import (
	"reflect"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
)

// TestIndexLineByLine: tokenising line by line gives the retention
// tokens of the whole (Tokens of WrittenDates).
func TestIndexLineByLine(t *testing.T) {
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{swc.RenderConversation(convs[0]), "a\n\nThe cat—and\nthe-dog.\n", "x", "", "on Jan\n21 at 02.01.2024\n3rd\nof May"} {
		if got, want := NewIndex(text).tokens, retentionTokens(text); !reflect.DeepEqual(got, want) && (len(got)+len(want) > 0) {
			t.Errorf("line-by-line tokens differ from Tokens for %.40q", text)
		}
	}
}
