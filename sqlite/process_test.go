package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// Environment of TestHelperProcess.
const (
	helperEnv       = "SWC_SQLITE_HELPER" // worker name; unset outside the helper
	helperDBEnv     = "SWC_SQLITE_HELPER_DB"
	helperOKMarker  = "HELPER-OK"
	helperPeers     = "SWC_SQLITE_HELPER_PEERS" // comma-separated worker names
	helperReverse   = "SWC_SQLITE_HELPER_REVERSE"
	barrierVariant  = "barrier"
	barrierDeadline = 60 * time.Second
)

var processWorkload = workload{shared: 300, own: 100}

// TestHelperProcess is one of the processes of TestTwoProcesses; it does
// nothing when run normally.
func TestHelperProcess(t *testing.T) {
	worker := os.Getenv(helperEnv)
	if worker == "" {
		t.Skip("helper process for TestTwoProcesses")
	}
	ctx := t.Context()
	db, err := Open(ctx, os.Getenv(helperDBEnv))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Barrier through the file itself: announce, then wait for every peer,
	// so the write phases really overlap.
	if err := db.PutGist(ctx, swc.GistKey{Variant: barrierVariant, Gister: worker}, "here"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(barrierDeadline)
	for _, peer := range strings.Split(os.Getenv(helperPeers), ",") {
		for {
			_, ok, err := db.Gist(ctx, swc.GistKey{Variant: barrierVariant, Gister: peer})
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: peer %s never arrived", worker, peer)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	start := time.Now()
	if err := processWorkload.run(ctx, db, worker, os.Getenv(helperReverse) == "1"); err != nil {
		t.Fatal(err)
	}
	s := db.Stats()
	fmt.Printf("%s %s start=%d end=%d gist_hits=%d gist_misses=%d\n", helperOKMarker, worker,
		start.UnixNano(), time.Now().UnixNano(), s.GistHits, s.GistMisses)
}

// TestTwoProcesses runs two processes of this test binary against one new
// cache file at once. Both open (and so create and migrate) the file
// concurrently, meet at a barrier, then write and read hundreds of gists,
// responses and embeddings with overlapping keys, the shared keys walked in
// opposite orders. Neither may see an error, and the file must afterwards
// pass integrity_check and hold exactly the expected entries.
func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	if os.Getenv(helperEnv) != "" {
		t.Skip("inside a helper")
	}
	path := filepath.Join(t.TempDir(), "shared", "cache.db")
	workers := []string{"procA", "procB"}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	type result struct {
		out, errOut bytes.Buffer
		err         error
	}
	results := make([]*result, len(workers))
	var wg sync.WaitGroup
	for i, worker := range workers {
		r := &result{}
		results[i] = r
		peer := workers[1-i]
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(),
			helperEnv+"="+worker,
			helperDBEnv+"="+path,
			helperPeers+"="+peer,
			fmt.Sprintf("%s=%d", helperReverse, i))
		cmd.Stdout, cmd.Stderr = &r.out, &r.errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { r.err = cmd.Wait() })
	}
	wg.Wait()

	var spans [][2]int64
	for i, r := range results {
		out := r.out.String()
		if r.err != nil || !strings.Contains(out, helperOKMarker+" "+workers[i]) {
			t.Fatalf("%s failed: %v\nstdout:\n%s\nstderr:\n%s", workers[i], r.err, out, r.errOut.String())
		}
		var start, end, hits, misses int64
		line := out[strings.Index(out, helperOKMarker):]
		if _, err := fmt.Sscanf(line, helperOKMarker+" "+workers[i]+" start=%d end=%d gist_hits=%d gist_misses=%d",
			&start, &end, &hits, &misses); err != nil {
			t.Fatalf("%s: bad report %q: %v", workers[i], line, err)
		}
		t.Logf("%s: %v of writes, %d gist hits, %d misses", workers[i], time.Duration(end-start), hits, misses)
		spans = append(spans, [2]int64{start, end})
	}
	if spans[0][0] > spans[1][1] || spans[1][0] > spans[0][1] {
		t.Errorf("the write phases did not overlap: %v", spans)
	}

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The barrier entries are two extra gists.
	if _, err := db.db.ExecContext(ctx, "DELETE FROM gists WHERE variant = ?", barrierVariant); err != nil {
		t.Fatal(err)
	}
	if err := processWorkload.verify(ctx, db, workers); err != nil {
		t.Fatal(err)
	}
}
