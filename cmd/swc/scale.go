package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/client"
)

// This file runs several `swc serve` processes on one database and drives
// them as clients would: the scaletest command and the scale-out
// tests share it.

// replica is one `swc serve` child process.
type replica struct {
	cmd  *exec.Cmd
	URL  string
	done chan struct{}
	err  error
}

// swcCommand returns the command running this binary as swc with args;
// tests replace it (their binary is not swc).
var swcCommand = func(args ...string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.Command(exe, args...)
}

// startReplica starts `swc serve --addr 127.0.0.1:0 args…` with extra
// environment variables env, its stderr to logw, and waits (up to 60s) for
// it to listen.
func startReplica(ctx context.Context, env []string, logw io.Writer, args ...string) (*replica, error) {
	cmd := swcCommand(append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = logw
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start replica: %w", err)
	}
	r := &replica{cmd: cmd, done: make(chan struct{})}
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "swc serve: listening on "); ok {
				urlc <- u
			}
		}
		io.Copy(io.Discard, out)
	}()
	go func() { r.err = cmd.Wait(); close(r.done) }()
	select {
	case r.URL = <-urlc:
		return r, nil
	case <-r.done:
		return nil, fmt.Errorf("replica exited before listening: %v", r.err)
	case <-time.After(60 * time.Second):
		r.Kill()
		return nil, errors.New("replica did not listen within 60s")
	case <-ctx.Done():
		r.Kill()
		return nil, ctx.Err()
	}
}

// Kill ends the replica with SIGKILL (kill -9) and waits for it.
func (r *replica) Kill() {
	r.cmd.Process.Kill()
	<-r.done
}

// Stop ends the replica with SIGTERM (graceful), SIGKILL after 20s.
func (r *replica) Stop() {
	select {
	case <-r.done:
		return
	default:
	}
	r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(20 * time.Second):
		r.Kill()
	}
}

// feedConv is one conversation to append, as messages with ids.
type feedConv struct {
	ID   string
	Msgs []swc.Message
}

// conversationMessages turns a conversation into messages: ids are the turn
// ids, times the session's start plus 30s per turn, explicit session ids.
func conversationMessages(c *swc.Conversation) []swc.Message {
	var out []swc.Message
	last := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for si, s := range c.Sessions {
		start := s.Start
		if start.Before(last) {
			start = last
		}
		for ti, t := range s.Turns {
			role := swc.RoleUser
			if t.Speaker == c.SpeakerB {
				role = swc.RoleAssistant
			}
			id := t.ID
			if id == "" {
				id = fmt.Sprintf("s%d-t%d", si, ti)
			}
			m := swc.Message{ID: id, Role: role, Name: t.Speaker, Content: t.Text, Time: start.Add(time.Duration(ti) * 30 * time.Second), Session: fmt.Sprintf("s%d", si+1)}
			out = append(out, m)
			last = m.Time
		}
	}
	return out
}

// feedStats is what a feed saw.
type feedStats struct {
	Requests, Retries, Unavailable int64
	Appended, Skipped              int64
	Latencies                      []time.Duration // of acknowledged appends
	Acked                          map[string][]string
	Elapsed                        time.Duration
}

// feed appends convs with clients concurrent clients, each sending the
// next batch (1..maxBatch messages) of a conversation no other client is
// sending to, to a replica chosen at random; retry (0..1) is the chance a
// client sends its previous batch again (to another replica), as after a
// lost answer. A 503 or a connection error is retried after a pause, until
// deadline; any other error ends the feed. It returns the acknowledged
// message ids per conversation.
func feed(ctx context.Context, urls []string, key string, convs []feedConv, clients, maxBatch int, retry float64, seed uint64) (*feedStats, error) {
	st := &feedStats{Acked: map[string][]string{}}
	type convState struct {
		mu   sync.Mutex
		next int
	}
	states := make([]convState, len(convs))
	var remaining atomic.Int64
	remaining.Store(int64(len(convs)))
	var mu sync.Mutex
	var firstErr error
	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(c)))
			cls := make([]*client.Client, len(urls))
			for i, u := range urls {
				cls[i] = client.New(u, key)
			}
			var prev []swc.Message
			prevConv := ""
			for remaining.Load() > 0 && ctx.Err() == nil {
				mu.Lock()
				failed := firstErr != nil
				mu.Unlock()
				if failed {
					return
				}
				i := rng.IntN(len(convs))
				s := &states[i]
				if !s.mu.TryLock() {
					continue
				}
				if s.next >= len(convs[i].Msgs) {
					s.mu.Unlock()
					time.Sleep(time.Millisecond)
					continue
				}
				n := 1 + rng.IntN(maxBatch)
				batch := convs[i].Msgs[s.next:min(s.next+n, len(convs[i].Msgs))]
				var extra []swc.Message
				if prevConv == convs[i].ID && rng.Float64() < retry {
					extra = prev // a retry of the previous batch, with the new one
					atomic.AddInt64(&st.Retries, 1)
				}
				send := append(slices.Clone(extra), batch...)
				var res swc.AppendResult
				var err error
				for {
					cl := cls[rng.IntN(len(cls))]
					t0 := time.Now()
					res, err = cl.Append(ctx, convs[i].ID, send)
					atomic.AddInt64(&st.Requests, 1)
					if err == nil {
						mu.Lock()
						st.Latencies = append(st.Latencies, time.Since(t0))
						mu.Unlock()
						break
					}
					var ce *client.Error
					if errors.As(err, &ce) && ce.Status != 503 {
						break
					}
					if errors.As(err, &ce) && ce.RetryAfter <= 0 {
						err = fmt.Errorf("503 without Retry-After: %w", err)
						break
					}
					atomic.AddInt64(&st.Unavailable, 1)
					if ctx.Err() != nil {
						break
					}
					time.Sleep(200 * time.Millisecond)
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("append to %s: %w", convs[i].ID, err)
					}
					mu.Unlock()
					s.mu.Unlock()
					return
				}
				atomic.AddInt64(&st.Appended, int64(res.Appended))
				atomic.AddInt64(&st.Skipped, int64(res.Skipped))
				mu.Lock()
				for _, m := range batch {
					st.Acked[convs[i].ID] = append(st.Acked[convs[i].ID], m.ID)
				}
				mu.Unlock()
				s.next += len(batch)
				if s.next >= len(convs[i].Msgs) {
					remaining.Add(-1)
				}
				s.mu.Unlock()
				prev, prevConv = batch, convs[i].ID
			}
		})
	}
	wg.Wait()
	st.Elapsed = time.Since(start)
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return st, firstErr
}
