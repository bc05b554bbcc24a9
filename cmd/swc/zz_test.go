package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/memory"
)

func TestZZTail(t *testing.T) {
	o := memory.DefaultOptions()
	o.Budget = 3000
	c, _ := memory.New(o)
	type rec struct {
		i int
		d time.Duration
	}
	var recs []rec
	f, _ := os.Create("/tmp/zztail.prof")
	pprof.StartCPUProfile(f)
	defer func() { pprof.StopCPUProfile(); f.Close() }()
	for a := range 4 {
		base := proxyHistory(400, 100+a)
		msgs := append([]swc.Message(nil), base...)
		for i := range 120 {
			msgs = append(msgs, swc.Message{Role: swc.RoleUser, Content: fmt.Sprintf("Question %d from agent %d: what did I say about the Atlas budget?", i, a)})
			st := time.Now()
			pprof.Do(context.Background(), pprof.Labels("boundary", fmt.Sprint(i%20 == 5)), func(ctx context.Context) {
				if _, err := c.Compress(ctx, msgs); err != nil {
					t.Fatal(err)
				}
			})
			if i > 0 {
				recs = append(recs, rec{i, time.Since(st)})
			}
		}
	}
	sort.Slice(recs, func(x, y int) bool { return recs[x].d > recs[y].d })
	for _, r := range recs[:15] {
		fmt.Println(r.i, r.i%20, r.d)
	}
	fmt.Println("median", recs[len(recs)/2].d)
}
