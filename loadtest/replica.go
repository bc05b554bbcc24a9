package loadtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Replica is one `swc serve` child process.
type Replica struct {
	cmd  *exec.Cmd
	URL  string // the base URL it listens on
	done chan struct{}
	err  error
}

// StartReplica starts cmd, a `swc serve` command (say, with --addr
// 127.0.0.1:0), with extra environment variables env and its stderr to
// logw, and waits (up to 60s) for it to print "swc serve: listening on
// URL". It returns an error when the process cannot start, exits first,
// or does not listen in time (it is killed then).
func StartReplica(ctx context.Context, cmd *exec.Cmd, env []string, logw io.Writer) (*Replica, error) {
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
	r := &Replica{cmd: cmd, done: make(chan struct{})}
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

// PID returns the replica's process id.
func (r *Replica) PID() int { return r.cmd.Process.Pid }

// Kill ends the replica with SIGKILL (kill -9) and waits for it.
func (r *Replica) Kill() {
	r.cmd.Process.Kill()
	<-r.done
}

// Signal sends sig to the replica's process.
func (r *Replica) Signal(sig os.Signal) error { return r.cmd.Process.Signal(sig) }

// Wait waits for the replica to exit and returns how it did (nil for
// status 0, an *exec.ExitError otherwise).
func (r *Replica) Wait() error {
	<-r.done
	return r.err
}

// Stop ends the replica with SIGTERM (graceful), SIGKILL after 20s.
func (r *Replica) Stop() {
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
