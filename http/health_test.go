package http_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/sleep"
)

// TestReadyz: /readyz is 200 while every check passes, 503 (Retry-After,
// no detail in the body, the error in the log) while one fails, and 200
// again by itself when it passes again; /healthz stays 200 throughout.
func TestReadyz(t *testing.T) {
	var down atomic.Bool
	var logs bytes.Buffer
	secret := "failed to connect to `user=swc database=swc`: 127.0.0.1:55432 (postgres://swc:pw@127.0.0.1:55432/swc)"
	e := newEnv(t, func(s *swchttp.Server, _ *sleep.Service) {
		s.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		s.Ready = append(s.Ready, swchttp.ReadyCheck{Name: "database", Check: func(ctx context.Context) error {
			if down.Load() {
				return errors.New(secret)
			}
			return nil
		}})
	})
	e.srv.Ready = append(e.srv.Ready, swchttp.ReadyCheck{Name: "queue", Check: e.queue.Ready},
		swchttp.ReadyCheck{Name: "schema", Check: e.db.Ready})
	if code, body := do(t, e, "GET", "/readyz", "", ""); code != 200 || !strings.Contains(body, `"status":"ready"`) || !strings.Contains(body, `"queue":"ok"`) {
		t.Fatalf("ready: %d %s", code, body)
	}
	down.Store(true)
	for range 2 {
		code, body := do(t, e, "GET", "/readyz", "", "")
		if code != 503 || !strings.Contains(body, `"database":"unavailable"`) || strings.Contains(body, "55432") || strings.Contains(body, "user=") {
			t.Fatalf("database down: %d %s", code, body)
		}
		if code, _ := do(t, e, "GET", "/healthz", "", ""); code != 200 {
			t.Fatalf("liveness follows the database: %d", code)
		}
	}
	if n := strings.Count(logs.String(), "not ready"); n != 1 || !strings.Contains(logs.String(), "55432") {
		t.Errorf("the failure is logged %d times (want once, with its error):\n%s", n, logs.String())
	}
	down.Store(false)
	if code, body := do(t, e, "GET", "/readyz", "", ""); code != 200 {
		t.Fatalf("recovered: %d %s", code, body)
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.queue.Stop(sctx)
	if code, body := do(t, e, "GET", "/readyz", "", ""); code != 503 || !strings.Contains(body, `"queue":"unavailable"`) {
		t.Fatalf("queue stopped: %d %s", code, body)
	}
}

// TestConnectivityProbe: a client's check that its base URL answers (HEAD
// /, GET and HEAD /api/hello, as Claude Code sends them) gets 200 without
// a key; any other method or path swc has no route for stays 404.
func TestConnectivityProbe(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{"HEAD", "/", 200},
		{"HEAD", "/api/hello", 200},
		{"GET", "/api/hello", 200},
		{"GET", "/", 404},
		{"POST", "/", 404},
		{"POST", "/api/hello", 404},
		{"HEAD", "/nope", 404},
	} {
		if code, body := do(t, e, tc.method, tc.path, "", ""); code != tc.want {
			t.Errorf("%s %s: %d %s, want %d", tc.method, tc.path, code, body, tc.want)
		}
	}
}
