package sqlite

import (
	"fmt"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// BenchmarkRecordCompression: what recording one compressed request adds
// to a stored-mode proxy request (the insert and the deletion past
// swc.CompressionsKept, one transaction), for a loop of 31 messages and
// one at swc.CompressionItemsMax.
func BenchmarkRecordCompression(b *testing.B) {
	for _, n := range []int{31, swc.CompressionItemsMax} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			db := openTest(b)
			ctx := b.Context()
			tn, err := db.CreateTenant(ctx, "acme")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := db.AppendMessages(ctx, tn.ID, "c", []swc.Message{{Role: swc.RoleUser, Content: "x"}}, swc.AppendOptions{}); err != nil {
				b.Fatal(err)
			}
			rec := swc.CompressionRecord{At: time.Unix(1, 0), Protocol: "anthropic", Mode: "stored", Budget: 1500}
			for i := range n {
				rec.Items = append(rec.Items, swc.CompressedItem{Index: i, Role: swc.RoleTool, Kind: swc.ItemMasked, Handle: "h0123456789",
					Chain: "0123456789abcdef0123456789abcdef", Tokens: 863, Sent: 138, Preview: "line 0 of file11.go in ui: value_ui_11_0 := compute(0)"})
			}
			b.ResetTimer()
			for b.Loop() {
				if err := db.RecordCompression(ctx, tn.ID, "c", rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
