package selection_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

func TestZZDump(t *testing.T) {
	ids := os.Getenv("SWC_DUMP_IDS")
	if ids == "" {
		t.Skip()
	}
	want := map[string]bool{}
	for _, id := range strings.Split(ids, ",") {
		want[id] = true
	}
	b, _ := strconv.Atoi(os.Getenv("SWC_DUMP_BUDGET"))
	for _, q := range evalQuestions(t) {
		if !want[q.q.ID] {
			continue
		}
		for _, spec := range strings.Fields(os.Getenv("SWC_EVAL")) {
			s := evalVariant(t, spec)
			x, err := s.Compress(context.Background(), q.conv, swc.CompressOptions{Budget: b, Query: q.q.Question})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("==== %s %s Q=%q GOLD=%q tokens=%d\n%s", q.q.ID, spec, q.q.Question, q.gold, x.Tokens, x.Text)
		}
	}
}
