package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
		resp, err := http.Get(r.URL + "/readyz")
		if err != nil {
			t.Fatalf("replica %d: %v", i+1, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("replica %d: /readyz %d", i+1, resp.StatusCode)
		}
		if _, err := client.New(r.URL, key).Conversations(context.Background()); err != nil {
			t.Errorf("replica %d: list conversations: %v", i+1, err)
		}
	}
}

// TestReadinessFollowsPostgres: with Postgres stopped, /readyz answers
// 503 and API errors say "database unavailable" without the database's
// user, name, host or port (the log has them); /healthz stays 200; when
// Postgres is back, /readyz is 200 again without a restart.
func TestReadinessFollowsPostgres(t *testing.T) {
	pgtest.DSN(t)
	pg, dir := privatePostgres(t, "swc-pg-ready-")
	dsn := pg("start", dir)
	defer pg("stop", dir)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	key := pgKey(t, dsn)
	rs := replicas(t, 1, dsn, nil, "--log-level", "warn")
	base := rs[0].URL
	get := func(path, key string) (int, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/readyz", ""); code != 200 {
		t.Fatalf("/readyz before: %d %s", code, body)
	}
	pg("stop", dir)
	leaks := []string{u.Hostname(), u.Port(), u.User.Username() + "@", "user=", strings.TrimPrefix(u.Path, "/") + "`", "postgres://"}
	for _, c := range []struct{ path, key string }{{"/readyz", ""}, {"/v1/conversations", key}, {"/v1/conversations", "swc_wrong"}} {
		code, body := get(c.path, c.key)
		if code != 503 {
			t.Errorf("%s with Postgres down: %d %s", c.path, code, body)
		}
		for _, l := range leaks {
			if strings.Contains(body, l) {
				t.Errorf("%s: the body shows %q: %s", c.path, l, body)
			}
		}
	}
	if code, body := get("/healthz", ""); code != 200 {
		t.Errorf("/healthz with Postgres down: %d %s", code, body)
	}
	pg("start", dir)
	waitUntil(t, 30*time.Second, "/readyz 200 after Postgres is back", func() bool {
		code, _ := get("/readyz", "")
		return code == 200
	})
	if code, body := get("/v1/conversations", key); code != 200 {
		t.Errorf("after Postgres is back: %d %s", code, body)
	}
}
