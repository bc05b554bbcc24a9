package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/swcmem/swc/client"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/postgres/pgtest"
)

// TestReplicasStartTogether starts 4 replicas at the same moment on an
// empty Postgres schema: every one migrates (swc's tables and River's
// under one advisory lock), listens and answers.
func TestReplicasStartTogether(t *testing.T) {
	dsn := pgtest.Schema(t)
	const n = 4
	var wg sync.WaitGroup
	rs := make([]*loadtest.Replica, n)
	errs := make([]error, n)
	logs := make([]string, n)
	start := make(chan struct{})
	for i := range n {
		logs[i] = filepath.Join(t.TempDir(), fmt.Sprintf("r%d.log", i+1))
		logf, err := os.Create(logs[i])
		if err != nil {
			t.Fatal(err)
		}
		defer logf.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			rs[i], errs[i] = startReplica(context.Background(), nil, logf,
				"--db", dsn, "--rate", "-1", "--log-level", "warn", "--no-cache")
		}()
	}
	close(start)
	wg.Wait()
	for i := range n {
		if rs[i] != nil {
			t.Cleanup(rs[i].Stop)
		}
	}
	for i, err := range errs {
		if err != nil {
			b, _ := os.ReadFile(logs[i])
			t.Errorf("replica %d: %v\n%s", i+1, err, b)
		}
	}
	if t.Failed() {
		return
	}
	key := pgKey(t, dsn)
	for i, r := range rs {
		if _, err := client.New(r.URL, key).Conversations(context.Background()); err != nil {
			t.Errorf("replica %d: list conversations: %v", i+1, err)
		}
	}
}
