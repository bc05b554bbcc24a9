package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/client"
	"github.com/swcmem/swc/loadtest"
	"github.com/swcmem/swc/locomo"
)

// serveProc is `swc serve` in a child process (this test binary run as
// swc, see TestMain), its stderr in a file.
type serveProc struct {
	*loadtest.Replica
	addr   string
	stderr *os.File
}

// startServe runs `swc serve ARGS` in a child process and waits until it
// listens; it is killed when t ends.
func startServe(t *testing.T, extraEnv []string, args ...string) *serveProc {
	t.Helper()
	errf, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	r, err := startReplica(context.Background(), extraEnv, errf, args...)
	if err != nil {
		b, _ := os.ReadFile(errf.Name())
		t.Fatalf("serve did not start: %v\n%s", err, b)
	}
	p := &serveProc{Replica: r, addr: strings.TrimPrefix(r.URL, "http://"), stderr: errf}
	t.Cleanup(p.Kill)
	return p
}

func (p *serveProc) log() string {
	b, _ := os.ReadFile(p.stderr.Name())
	return string(b)
}

func newKey(t *testing.T, db, tenant string) string {
	t.Helper()
	out, _, err := run(t, nil, "keys", "create", "--db", db, "--tenant", tenant)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// TestServeKill9WhileAppending kills the server with SIGKILL while 8
// clients append batches; clients retry unacknowledged batches with the
// same ids. After a restart every acknowledged message is stored exactly
// once, and consolidation makes no duplicate gist.
func TestServeKill9WhileAppending(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills servers")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "swc.db")
	key := newKey(t, db, "acme")
	// A consolidation job the kill leaves running is taken for dead and
	// run again after --rescue-after: short here, so that the explicit
	// consolidations below (which a running job absorbs) do not wait the
	// default six minutes for it.
	args := []string{"--db", db, "--addr", "127.0.0.1:0", "--schedule", "idle:1h", "--rate", "-1", "--poll", "100ms",
		"--job-timeout", "20s", "--rescue-after", "21s"}
	srv := startServe(t, nil, args...)
	var addr atomic.Value
	addr.Store(srv.addr)

	const clients, batches, per = 8, 40, 10
	var acked sync.Map // message id → true once a 201 covered it
	var sent atomic.Int64
	var retries atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hc := &http.Client{Timeout: 5 * time.Second}
			for b := range batches {
				var msgs []swc.Message
				for i := range per {
					msgs = append(msgs, swc.Message{
						ID: fmt.Sprintf("c%d-b%d-m%d", c, b, i), Role: swc.RoleUser, Name: fmt.Sprintf("Client%d", c),
						Content: fmt.Sprintf("Client %d says fact number %d about Lisbon in batch %d.", c, i, b),
						Time:    time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(b*per+i) * time.Minute),
					})
				}
				for {
					cl := client.New("http://"+addr.Load().(string), key)
					cl.HTTPClient = hc
					_, err := cl.Append(ctx, fmt.Sprintf("conv-%d", c), msgs)
					if err == nil {
						for _, m := range msgs {
							acked.Store(m.ID, true)
						}
						sent.Add(int64(len(msgs)))
						break
					}
					if ctx.Err() != nil {
						return
					}
					retries.Add(1)
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
	}
	// Kill once some batches are acknowledged and the clients are busy.
	deadline := time.Now().Add(30 * time.Second)
	for sent.Load() < clients*per*5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	ackedAtKill := sent.Load()
	srv.Kill()
	time.Sleep(200 * time.Millisecond)
	srv2 := startServe(t, nil, append(args[:len(args):len(args)], "--addr", srv.addr)...)
	addr.Store(srv2.addr)
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("clients did not finish: %v\n%s", ctx.Err(), srv2.log())
	}

	cl := client.New("http://"+srv2.addr, key)
	found := map[string]int{}
	for c := range clients {
		conv, err := cl.Conversation(ctx, fmt.Sprintf("conv-%d", c))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range conv.MessageList {
			found[m.ID]++
		}
	}
	nAcked, missing, dups := 0, 0, 0
	acked.Range(func(k, _ any) bool {
		nAcked++
		switch found[k.(string)] {
		case 0:
			missing++
		case 1:
		default:
			dups++
		}
		return true
	})
	t.Logf("kill -9 after %d acknowledged messages; %d client retries; acknowledged %d, found %d distinct (%d stored rows), missing %d, duplicated %d",
		ackedAtKill, retries.Load(), nAcked, len(found), sumCounts(found), missing, dups)
	if nAcked != clients*batches*per || missing != 0 || dups != 0 || sumCounts(found) != nAcked {
		t.Fatalf("acknowledged %d (want %d), missing %d, duplicated %d, stored %d", nAcked, clients*batches*per, missing, dups, sumCounts(found))
	}
	writeResult(t, "kill9_appending", map[string]any{"acknowledged": nAcked, "found": len(found), "stored_rows": sumCounts(found),
		"missing": missing, "duplicated": dups, "acknowledged_at_kill": ackedAtKill, "client_retries": retries.Load()})

	// Consolidate everything twice: no gist is stored twice.
	for range 2 {
		for c := range clients {
			if _, err := cl.Consolidate(ctx, fmt.Sprintf("conv-%d", c)); err != nil {
				t.Fatal(err)
			}
		}
		var state string // what the last look saw, for the failure message
		waitUntil(t, 120*time.Second, "consolidations", func() bool {
			state = ""
			done := true
			for c := range clients {
				conv, err := cl.Conversation(context.Background(), fmt.Sprintf("conv-%d", c))
				switch {
				case err != nil:
					state += fmt.Sprintf("\nconv-%d: %v", c, err)
					done = false
				case conv.ConsolidationRequested.After(conv.ConsolidatedAt) || conv.ConsolidatedMessages != conv.Messages:
					state += fmt.Sprintf("\nconv-%d: requested %s, consolidated %s, %d of %d messages, jobs %+v", c,
						conv.ConsolidationRequested.Format(time.RFC3339Nano), conv.ConsolidatedAt.Format(time.RFC3339Nano), conv.ConsolidatedMessages, conv.Messages, conv.PendingJobs)
					done = false
				}
			}
			return done
		}, func() string { return state + "\n" + srv2.log() })
	}
	checkNoDuplicateGists(t, cl, clients)
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func checkNoDuplicateGists(t *testing.T, cl *client.Client, n int) {
	t.Helper()
	for c := range n {
		conv, err := cl.Conversation(context.Background(), fmt.Sprintf("conv-%d", c))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, g := range conv.Gists {
			k := fmt.Sprint(g.Session, g.ContentHash, g.Variant, g.Gister)
			if seen[k] {
				t.Errorf("conv-%d: duplicate gist for session %d", c, g.Session)
			}
			seen[k] = true
		}
	}
}

func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool, why ...func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	msg := ""
	for _, w := range why {
		msg += w()
	}
	t.Fatalf("timed out after %v waiting for %s%s", d, what, msg)
}

// writeResult records a reliability figure for the notes when
// SWC_TEST_RESULTS names a directory.
func writeResult(t *testing.T, name string, v any) {
	dir := os.Getenv("SWC_TEST_RESULTS")
	if dir == "" {
		return
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644)
}

// slowLLM is an OpenAI-compatible chat completions server whose answers
// block until released, counting calls.
type slowLLM struct {
	calls   atomic.Int64
	release chan struct{}
}

func (s *slowLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.calls.Add(1)
	select {
	case <-s.release:
	case <-r.Context().Done():
		return
	}
	var req struct {
		Model string `json:"model"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"x","object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":"A gist: the speakers talked about Lisbon and a dog named Rex."},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":12,"total_tokens":22}}`, req.Model)
}

// TestServeKill9DuringJob kills the server while a consolidation job
// waits on its (LLM) gister; after a restart River rescues the job, it runs
// again and finishes, and no gist is stored twice.
func TestServeKill9DuringJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills servers")
	}
	llm := &slowLLM{release: make(chan struct{})}
	fake := httptest.NewServer(llm)
	defer fake.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "swc.db")
	key := newKey(t, db, "acme")
	env := []string{"OPENAI_API_KEY=test", "OPENAI_BASE_URL=" + fake.URL + "/v1"}
	args := []string{"--db", db, "--addr", "127.0.0.1:0", "--schedule", "idle:1h", "--gister", "openai:gpt-4o-mini",
		"--job-timeout", "2s", "--rescue-after", "3s", "--poll", "100ms"}
	srv := startServe(t, env, args...)
	cl := client.New("http://"+srv.addr, key)
	ctx := context.Background()
	convs := loadSample(t)
	msgs := messagesOf(convs)
	if _, err := cl.Append(ctx, "c", msgs); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Consolidate(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, "the job to call the gister", func() bool { return llm.calls.Load() > 0 })
	detail, err := cl.Conversation(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(detail.PendingJobs) != 1 || detail.PendingJobs[0].State != "running" {
		t.Fatalf("jobs while gisting: %+v", detail.PendingJobs)
	}
	srv.Kill()
	callsBefore := llm.calls.Load()
	close(llm.release) // the restarted server's calls are answered
	srv2 := startServe(t, env, args...)
	cl = client.New("http://"+srv2.addr, key)
	start := time.Now()
	waitUntil(t, 120*time.Second, "the rescued job to finish", func() bool {
		d, err := cl.Conversation(ctx, "c")
		return err == nil && d.ConsolidatedMessages == d.Messages && len(d.Gists) > 0
	})
	d, _ := cl.Conversation(ctx, "c")
	t.Logf("job rescued and finished %v after restart; %d gists; gister calls %d before kill, %d in all", time.Since(start).Round(time.Second), len(d.Gists), callsBefore, llm.calls.Load())
	checkNoDuplicateGists(t, cl, 0)
	seen := map[int]int{}
	for _, g := range d.Gists {
		seen[g.Session]++
		if seen[g.Session] > 1 {
			t.Errorf("session %d has %d gists", g.Session, seen[g.Session])
		}
	}
	// A second consolidation reuses the REM cache: no new LLM call.
	calls := llm.calls.Load()
	if _, err := cl.Append(ctx, "c", []swc.Message{{ID: "late", Role: swc.RoleUser, Content: "One more thing.", Time: msgs[len(msgs)-1].Time.Add(time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Consolidate(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 30*time.Second, "second consolidation", func() bool {
		d, err := cl.Conversation(ctx, "c")
		return err == nil && d.ConsolidatedMessages == d.Messages
	})
	d2, _ := cl.Conversation(ctx, "c")
	// Sessions whose content did not change keep their one gist; a
	// session that became mid with the new one gets its own.
	per := map[int]int{}
	for _, g := range d2.Gists {
		per[g.Session]++
	}
	for _, g := range d.Gists {
		if per[g.Session] != 1 {
			t.Errorf("session %d has %d gists after the second consolidation", g.Session, per[g.Session])
		}
	}
	t.Logf("second consolidation: gists %d → %d, %d new gister calls", len(d.Gists), len(d2.Gists), llm.calls.Load()-calls)
	// The metrics count the jobs, the gists and the LLM tokens.
	resp, err := http.Get("http://" + srv2.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`swc_jobs_total{result="ok"}`, "swc_gists_made_total", `swc_llm_tokens_total{direction="input"}`} {
		i := strings.Index(string(body), want+" ")
		if i < 0 || strings.HasPrefix(string(body[i+len(want)+1:]), "0\n") {
			t.Errorf("metric %s missing or zero", want)
		}
	}
	writeResult(t, "kill9_job", map[string]any{"rescued_after": time.Since(start).String(), "gists": len(d.Gists), "calls_before_kill": callsBefore})
}

func loadSample(t *testing.T) []*swc.Conversation {
	t.Helper()
	convs, err := locomo.Sample()
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

func messagesOf(convs []*swc.Conversation) []swc.Message { return chat.FromConversation(convs[0]) }

// TestServeGracefulSIGTERM sends SIGTERM while a request is in flight:
// the request finishes (201), the server exits 0, and the message is there
// after a restart.
func TestServeGracefulSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "swc.db")
	key := newKey(t, db, "acme")
	args := []string{"--db", db, "--addr", "127.0.0.1:0", "--poll", "100ms", "--log-level", "debug"}
	srv := startServe(t, nil, args...)
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", "http://"+srv.addr+"/v1/conversations/g/messages", pr)
	req.Header.Set("Authorization", "Bearer "+key)
	type result struct {
		status int
		err    error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		resp.Body.Close()
		done <- result{status: resp.StatusCode}
	}()
	io.WriteString(pw, `{"messages":[{"id":"m1","role":"user",`)
	time.Sleep(300 * time.Millisecond) // the request is being read
	if err := srv.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	io.WriteString(pw, `"content":"finished after SIGTERM"}]}`)
	pw.Close()
	r := <-done
	if r.err != nil || r.status != 201 {
		t.Fatalf("in-flight request: %d, %v\n%s", r.status, r.err, srv.log())
	}
	if err := srv.Wait(); err != nil {
		t.Fatalf("server exit: %v\n%s", err, srv.log())
	}
	if !strings.Contains(srv.log(), "msg=stopped") {
		t.Errorf("no clean stop in the log:\n%s", srv.log())
	}
	srv2 := startServe(t, nil, args...)
	d, err := client.New("http://"+srv2.addr, key).Conversation(context.Background(), "g")
	if err != nil || d.Messages != 1 {
		t.Fatalf("after restart: %+v, %v", d, err)
	}
	list, _, _ := run(t, nil, "keys", "list", "--db", db)
	tenant := strings.Fields(strings.Split(list, "\n")[1])[1]
	logs := srv.log() + srv2.log()
	if !strings.Contains(logs, "route=\"POST /v1/conversations/{id}/messages\" status=201") {
		t.Errorf("no request line in the debug log:\n%s", logs)
	}
	for what, secret := range map[string]string{"key": key, "tenant id": tenant, "conversation id": "/g/"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the %s appears in the log", what)
		}
	}
}
