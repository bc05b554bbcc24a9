package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc/client"
	"github.com/swcmem/swc/internal/locomotest"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/locomo"
	"github.com/swcmem/swc/postgres/pgtest"
)

// The scale-out tests run real `swc serve` processes (this test
// binary re-executed as swc) on one Postgres.

func TestMain(m *testing.M) {
	if os.Getenv("SWC_TEST_AS_SWC") == "1" {
		main()
		os.Exit(0)
	}
	swcCommand = func(args ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "SWC_TEST_AS_SWC=1")
		return cmd
	}
	os.Exit(m.Run())
}

var scaleLoCoMo = locomotest.Path()

func loadFeed(t *testing.T, n int) []loadtest.FeedConv {
	t.Helper()
	convs, _, err := locomo.LoadFile(locomotest.Need(t))
	if err != nil {
		t.Fatal(err)
	}
	var out []loadtest.FeedConv
	for _, c := range convs[:min(n, len(convs))] {
		out = append(out, loadtest.FeedConv{ID: c.ID, Msgs: loadtest.ConversationMessages(c)})
	}
	return out
}

// fakeGister speaks Anthropic's Messages API: a gist that is a function of
// the request (so every replica makes the same), after delay. It counts
// requests by replica (the first path element) and by content.
type fakeGister struct {
	delay     time.Duration
	mu        sync.Mutex
	byReplica map[string]int
	byContent map[string]int
	started   chan string // replica of each request, when it starts (non-blocking)
}

func newFakeGister(delay time.Duration) *fakeGister {
	return &fakeGister{delay: delay, byReplica: map[string]int{}, byContent: map[string]int{}, started: make(chan string, 1000)}
}

func (f *fakeGister) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	replica, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	body, _ := io.ReadAll(r.Body)
	if rest != "v1/messages" {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad path"}}`, 400)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	var content bytes.Buffer
	for _, m := range req.Messages {
		content.Write(m.Content)
	}
	sum := sha256.Sum256(content.Bytes())
	h := hex.EncodeToString(sum[:8])
	select {
	case f.started <- replica:
	default:
	}
	f.mu.Lock()
	f.byReplica[replica]++
	f.byContent[h]++
	f.mu.Unlock()
	time.Sleep(f.delay)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"Gist %s: they met and talked about it on that day."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":12}}`, req.Model, h, len(body)/4)
}

// scaleEnv is a fake gister and the environment replicas need for it.
func (f *fakeGister) env(srv *httptest.Server, replica string) []string {
	return []string{"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=" + srv.URL + "/" + replica}
}

// pgKey makes a tenant key on the database, in-process.
func pgKey(t *testing.T, dsn string) string {
	t.Helper()
	var out, errb bytes.Buffer
	env := NewEnv(strings.NewReader(""), &out, &errb, nil)
	if err := Run(context.Background(), env, []string{"keys", "create", "--db", dsn, "--tenant", "acme"}); err != nil {
		t.Fatalf("keys create: %v\n%s", err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// replicas starts n replicas on dsn; each gets the fake gister under its
// own name (r1, r2, …). They are stopped when t ends.
func replicas(t *testing.T, n int, dsn string, fake *httptest.Server, args ...string) []*loadtest.Replica {
	t.Helper()
	var out []*loadtest.Replica
	for i := range n {
		name := fmt.Sprintf("r%d", i+1)
		logf, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		env := []string{}
		if fake != nil {
			env = (&fakeGister{}).env(fake, name)
		}
		base := []string{"--db", dsn, "--rate", "-1", "--poll", "100ms", "--log-level", "warn", "--no-cache"}
		r, err := startReplica(context.Background(), env, logf, append(base, args...)...)
		if err != nil {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("replica %s: %v\n%s", name, err, b)
		}
		t.Cleanup(func() {
			r.Stop()
			logf.Close()
			if t.Failed() {
				b, _ := os.ReadFile(logf.Name())
				t.Logf("replica %s log:\n%s", name, b)
			}
		})
		out = append(out, r)
	}
	return out
}

// waitConsolidated waits until every conversation is consolidated through
// its last session with no job pending, via the replica at url.
func waitConsolidated(t *testing.T, url, key string, ids []string, within time.Duration) {
	t.Helper()
	cl := client.New(url, key)
	deadline := time.Now().Add(within)
	for _, id := range ids {
		for {
			c, err := cl.Conversation(context.Background(), id)
			if err == nil && c.ConsolidatedThrough == c.Sessions && c.ConsolidatedMessages == c.Messages && len(c.PendingJobs) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s not consolidated within %v: %+v, %v", id, within, c, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// TestScaleOutTwoReplicas: two replicas on one Postgres, 16 clients
// appending the 10 LoCoMo conversations through both at random (with
// retries): every acknowledged message stored once, one job per
// conversation and trigger, identical contexts from both replicas.
func TestScaleOutTwoReplicas(t *testing.T) {
	dsn := pgtest.Schema(t)
	convs := loadFeed(t, 10)
	fake := newFakeGister(0)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key := pgKey(t, dsn)
	rs := replicas(t, 2, dsn, srv, "--schedule", "idle:1h", "--gister", "anthropic:claude-haiku-4-5")
	urls := []string{rs[0].URL, rs[1].URL}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	st, err := loadtest.Feed(ctx, urls, key, convs, 16, 8, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, c := range convs {
		total += len(c.Msgs)
	}
	t.Logf("ingest: %d messages in %d requests (%d with a retried batch) in %v; p99 %v", total, st.Requests, st.Retries, st.Elapsed.Round(time.Millisecond), loadtest.Percentile(st.Latencies, 0.99))
	if st.Appended != int64(total) {
		t.Fatalf("appended %d, want %d (skipped %d)", st.Appended, total, st.Skipped)
	}
	c1, c2 := client.New(urls[0], key), client.New(urls[1], key)
	for _, c := range convs {
		got, err := c2.Conversation(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.MessageList) != len(c.Msgs) || len(st.Acked[c.ID]) != len(c.Msgs) {
			t.Fatalf("%s: %d stored, %d acknowledged, want %d", c.ID, len(got.MessageList), len(st.Acked[c.ID]), len(c.Msgs))
		}
		for i, m := range got.MessageList {
			if m.ID != c.Msgs[i].ID || m.Seq != int64(i+1) {
				t.Fatalf("%s: message %d is %s (seq %d), want %s", c.ID, i, m.ID, m.Seq, c.Msgs[i].ID)
			}
		}
	}
	// Unique jobs across replicas: one waiting job per conversation.
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var jobs, convsWithJobs int
	if err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT args) FROM river_job WHERE kind = 'swc_consolidate' AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&jobs, &convsWithJobs); err != nil {
		t.Fatal(err)
	}
	if jobs != len(convs) || convsWithJobs != len(convs) {
		t.Fatalf("%d waiting jobs for %d conversations, want one each for %d", jobs, convsWithJobs, len(convs))
	}
	// Both replicas serve the same contexts before consolidation.
	sameContexts(t, ctx, c1, c2, convs)

	// Trigger: both replicas asked at once for every conversation.
	var wg sync.WaitGroup
	for _, c := range convs {
		for _, cl := range []*client.Client{c1, c2} {
			wg.Go(func() {
				if _, err := cl.Consolidate(ctx, c.ID); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	ids := make([]string, len(convs))
	for i, c := range convs {
		ids[i] = c.ID
	}
	waitConsolidated(t, urls[0], key, ids, 2*time.Minute)
	fake.mu.Lock()
	calls, dup := 0, 0
	for _, n := range fake.byContent {
		calls += n
		if n > 1 {
			dup++
		}
	}
	byReplica := fmt.Sprint(fake.byReplica)
	fake.mu.Unlock()
	t.Logf("consolidation: %d gist calls (%s), %d requested twice", calls, byReplica, dup)
	if calls == 0 || dup > 0 {
		t.Fatalf("%d gist calls, %d of one content more than once: a conversation was consolidated by two jobs", calls, dup)
	}
	var ran int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'swc_consolidate' AND state = 'completed'`).Scan(&ran); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d jobs completed for %d conversations", ran, len(convs))
	sameContexts(t, ctx, c1, c2, convs)
}

// sameContexts checks both replicas answer byte-identical contexts.
func sameContexts(t *testing.T, ctx context.Context, c1, c2 *client.Client, convs []loadtest.FeedConv) {
	t.Helper()
	for _, c := range convs {
		for _, budget := range []int{1000, 4000} {
			a, err := c1.Context(ctx, c.ID, client.ContextOptions{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			b, err := c2.Context(ctx, c.ID, client.ContextOptions{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if !bytes.Equal(ja, jb) || a.Text == "" {
				t.Fatalf("%s at %d: replicas differ (or empty):\n%s\n%s", c.ID, budget, ja, jb)
			}
		}
	}
}

// TestScaleOutKillMidJob: the replica running a consolidation is killed
// with SIGKILL; River's rescuer (on the other replica, after
// --rescue-after) hands the job over; the gists complete, none twice.
func TestScaleOutKillMidJob(t *testing.T) {
	dsn := pgtest.Schema(t)
	convs := loadFeed(t, 1)
	fake := newFakeGister(time.Second)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key := pgKey(t, dsn)
	rs := replicas(t, 2, dsn, srv, "--schedule", "idle:1h", "--gister", "anthropic:claude-haiku-4-5",
		"--job-timeout", "15s", "--rescue-after", "16s", "--no-cache=false") // the REM cache the replicas share
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := loadtest.Feed(ctx, []string{rs[0].URL}, key, convs, 1, 50, 0, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := client.New(rs[0].URL, key).Consolidate(ctx, convs[0].ID); err != nil {
		t.Fatal(err)
	}
	var victim string
	select {
	case victim = <-fake.started:
	case <-time.After(time.Minute):
		t.Fatal("no gist call within a minute of asking for a consolidation")
	}
	time.Sleep(300 * time.Millisecond) // its first gist calls in flight
	killed, survivor := rs[0], rs[1]
	if victim == "r2" {
		killed, survivor = rs[1], rs[0]
	}
	killed.Kill()
	killedAt := time.Now()
	time.Sleep(200 * time.Millisecond) // requests sent before the kill reach the fake
	fake.mu.Lock()
	before := fake.byReplica[victim]
	fake.mu.Unlock()
	t.Logf("killed %s after %d gist calls", victim, before)
	waitConsolidated(t, survivor.URL, key, []string{convs[0].ID}, 2*time.Minute)
	t.Logf("rescued and done %v after the kill", time.Since(killedAt).Round(time.Second))

	c, err := client.New(survivor.URL, key).Conversation(ctx, convs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, g := range c.Gists {
		k := fmt.Sprintf("%d/%s/%s", g.Session, g.Variant, g.Gister)
		if seen[k] {
			t.Fatalf("session %d has two %s gists", g.Session, g.Variant)
		}
		seen[k] = true
	}
	if len(c.Gists) == 0 {
		t.Fatal("no gists stored")
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var attempt int
	var state string
	var attemptedBy []string
	if err := conn.QueryRow(ctx, `SELECT attempt, state, attempted_by FROM river_job WHERE kind = 'swc_consolidate' ORDER BY id LIMIT 1`).Scan(&attempt, &state, &attemptedBy); err != nil {
		t.Fatal(err)
	}
	t.Logf("job: state %s after %d attempts by %v; %d gists", state, attempt, attemptedBy, len(c.Gists))
	if state != "completed" || attempt < 2 || len(attemptedBy) < 2 || attemptedBy[0] == attemptedBy[len(attemptedBy)-1] {
		t.Fatalf("job %s after %d attempts by %v: want completed by another client after a rescue", state, attempt, attemptedBy)
	}
	var cached int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM rem_gists`).Scan(&cached); err != nil {
		t.Fatal(err)
	}
	if cached < len(c.Gists) {
		t.Fatalf("%d gists in the shared REM cache, want at least the %d stored", cached, len(c.Gists))
	}
	fake.mu.Lock()
	after := fake.byReplica[victim]
	fake.mu.Unlock()
	if after != before {
		t.Fatalf("the killed replica made %d gist calls after its death", after-before)
	}
}

// TestScaleOutPostgresRestart: Postgres is restarted while 8 clients
// append through two replicas. Clients get 503 with Retry-After (never
// another error) and retry; every acknowledged message is stored once; the
// replicas recover without a restart (appends and consolidation work).
func TestScaleOutPostgresRestart(t *testing.T) {
	pgtest.DSN(t) // Postgres is there (skip or fail as the other tests)
	pg, dir := privatePostgres(t, "swc-pg-restart-")
	dsn := pg("start", dir)
	defer pg("stop", dir)

	convs := loadFeed(t, 4)
	key := pgKey(t, dsn)
	rs := replicas(t, 2, dsn, nil, "--schedule", "idle:1h")
	urls := []string{rs[0].URL, rs[1].URL}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	type result struct {
		st  *loadtest.FeedStats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := loadtest.Feed(ctx, urls, key, convs, 8, 4, 0.2, 2)
		done <- result{st, err}
	}()
	time.Sleep(time.Second)
	pg("stop", dir)
	time.Sleep(2 * time.Second)
	pg("start", dir)
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	st := res.st
	t.Logf("ingest through a restart: %d requests, %d answered 503 (Retry-After) and retried, %v", st.Requests, st.Unavailable, st.Elapsed.Round(time.Millisecond))
	if st.Unavailable == 0 {
		t.Fatal("no request saw the database down: the restart came too late to test anything")
	}
	cl := client.New(urls[1], key)
	ids := []string{}
	for _, c := range convs {
		got, err := cl.Conversation(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[string]int{}
		for _, m := range got.MessageList {
			stored[m.ID]++
		}
		for _, id := range st.Acked[c.ID] {
			if stored[id] != 1 {
				t.Fatalf("%s: acknowledged message %s stored %d times", c.ID, id, stored[id])
			}
		}
		if len(got.MessageList) != len(c.Msgs) {
			t.Fatalf("%s: %d messages stored, want %d", c.ID, len(got.MessageList), len(c.Msgs))
		}
		if _, err := cl.Consolidate(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	waitConsolidated(t, urls[0], key, ids, 2*time.Minute)
}

func TestScaletestCommand(t *testing.T) {
	dsn := pgtest.Schema(t)
	loadFeed(t, 1) // skips without the data
	out, stderr, err := run(t, nil, "scaletest", "--db", dsn, "--data", scaleLoCoMo, "--replicas", "2", "--conversations", "2",
		"--clients", "4", "--readers", "2", "--duration", "500ms")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"Postgres, 2 replicas", "warm-up ", "(fresh replicas)", "ingest ", "context reads ", ", 0 errors", "read floor ", "cpu per append ", "cpu per read ",
		"per database core ", "database cores", "messages ", "conv_gists "} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
}

// The same command on a SQLite file: one replica, the database's CPU is
// the replica's.
func TestScaletestSQLite(t *testing.T) {
	loadFeed(t, 1) // skips without the data
	db := filepath.Join(t.TempDir(), "swc.db")
	out, stderr, err := run(t, nil, "scaletest", "--db", db, "--data", scaleLoCoMo, "--replicas", "1", "--conversations", "2",
		"--clients", "4", "--readers", "2", "--duration", "500ms")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"SQLite, 1 replicas", "warm-up ", "ingest ", ", 0 errors", "read floor ", "database in the replica", "per replica core ", "replica cores"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	if _, _, err := run(t, nil, "scaletest", "--db", db, "--data", scaleLoCoMo, "--replicas", "2"); err == nil || !strings.Contains(err.Error(), "one replica") {
		t.Fatalf("two replicas on a SQLite file: %v, want a usage error", err)
	}
}

// privatePostgres makes a directory for a throwaway cluster of the test's
// own (removed when the test ends) and returns it with a function that
// runs .ci/postgres.sh with the given arguments and returns its output
// (the DSN for "start"); a failing script fails the test with its stderr.
func privatePostgres(t *testing.T, prefix string) (pg func(args ...string) string, dir string) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", ".ci", "postgres.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	pg = func(args ...string) string {
		out, err := exec.Command("bash", append([]string{script}, args...)...).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("postgres.sh %v: %v\n%s", args, err, ee.Stderr)
			}
			t.Fatalf("postgres.sh %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	return pg, dir
}
