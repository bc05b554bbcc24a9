package http_test

import (
	"context"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/chat"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/strategy"
)

// TestRecallQueryLoCoMo measures swc_recall's query against swc-recall's
// context: for every LoCoMo question the bench scores (adversarial and
// abstention questions left out, as support@5 leaves them), one query
// with the question's text over the conversation as chat messages
// (chat.FromConversation: sessions, dates, image captions), and
// swc-recall's context of the question at 4,000 tokens; each answer
// scored as the bench scores a context, support_recall@5 (the gold
// answer's content tokens found in the 5 lines BM25 ranks best for the
// question). The goal: the query's mean at least swc-recall's.
// go test ./http -run RecallQueryLoCoMo -v
func TestRecallQueryLoCoMo(t *testing.T) {
	locomotest.Wide(t)
	convs := locomotest.Load(t)
	strat, err := strategy.New("swc-recall", strategy.Engines{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var n, queryFull, recallFull int
	var query, recall float64
	for _, c := range convs {
		msgs := chat.FromConversation(c)
		for _, q := range c.Questions {
			if q.Category == swc.Adversarial || q.Abstention {
				continue
			}
			gold := bench.GoldFor(q)
			sq := bench.SupportRecall(swchttp.RecallQuery(msgs, q.Question), q.Question, gold, bench.SupportK)
			x, err := strat.Compress(ctx, c, swc.CompressOptions{Budget: 4000, Query: q.Question})
			if err != nil {
				t.Fatalf("%s %s: %v", c.ID, q.ID, err)
			}
			sr := bench.SupportRecall(x.Text, q.Question, gold, bench.SupportK)
			n++
			query, recall = query+sq, recall+sr
			if sq == 1 {
				queryFull++
			}
			if sr == 1 {
				recallFull++
			}
		}
	}
	if n == 0 {
		t.Fatal("no question scored")
	}
	t.Logf("%d conversations, %d questions: swc_recall query support@5 %.3f (all of the gold in %d), swc-recall at 4000 tokens %.3f (%d)",
		len(convs), n, query/float64(n), queryFull, recall/float64(n), recallFull)
	if query < recall {
		t.Errorf("swc_recall's query found less of the gold than swc-recall's context: %.3f < %.3f", query/float64(n), recall/float64(n))
	}
}
