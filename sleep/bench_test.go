package sleep_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/sleep"
	"github.com/swcmem/swc/sqlite"
)

// BenchmarkConsolidateLoCoMo stores one LoCoMo conversation and
// consolidates it with the extractive gister (the job's work): an upper
// bound of the idle consolidation's time. It needs ../shared/data/locomo.
func BenchmarkConsolidateLoCoMo(b *testing.B) {
	convs, _, err := locomo.LoadFile(locomotest.Need(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, i := range []int{0, 4} {
		msgs := chat.FromConversation(convs[i])
		b.Run(fmt.Sprintf("conv%d-%dmsgs/append+consolidate", i, len(msgs)), func(b *testing.B) {
			ctx := context.Background()
			db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "swc.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			m := &sleep.Service{Store: db, Gister: gist.NewExtractive(), Fallback: gist.NewExtractive(),
				Strategy: "swc-anchored", Budget: 4000, Schedule: consolidate.Schedule{Kind: consolidate.Idle, Window: time.Minute}}
			n := 0
			for b.Loop() {
				conv := fmt.Sprint("c", n)
				n++
				if _, err := db.AppendMessages(ctx, "t", conv, msgs, swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return time.Now() }}); err != nil {
					b.Fatal(err)
				}
				if _, err := m.Consolidate(ctx, "t", conv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
