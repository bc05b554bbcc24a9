package http

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// ReadyCheck is one part of a replica's readiness (GET /readyz): Check
// returns nil when that part is ready. Its error is logged, never shown.
type ReadyCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// readyTimeout bounds each readiness check.
const readyTimeout = 2 * time.Second

// readiness remembers which checks failed last, so that a change is
// logged once rather than on every probe.
type readiness struct {
	mu     sync.Mutex
	failed map[string]bool
}

// healthz is liveness: the process serves requests. It asks nothing of
// the database, so a database outage does not get replicas restarted.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz runs every ReadyCheck: 200 {"status":"ready","checks":{name:"ok"}}
// when all pass, else 503 (Retry-After) with the failing ones
// "unavailable". The checks run on each probe, so readiness comes back by
// itself when the database does.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	checks := map[string]string{}
	ok := true
	for _, c := range s.Ready {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		err := c.Check(ctx)
		cancel()
		checks[c.Name] = "ok"
		if err != nil {
			checks[c.Name], ok = "unavailable", false
		}
		s.noteReady(c.Name, err)
	}
	if !ok {
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "checks": checks})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": checks})
}

// noteReady logs a check that starts failing (with its error) or
// recovers.
func (s *Server) noteReady(name string, err error) {
	s.ready.mu.Lock()
	was := s.ready.failed[name]
	if s.ready.failed == nil {
		s.ready.failed = map[string]bool{}
	}
	s.ready.failed[name] = err != nil
	s.ready.mu.Unlock()
	switch {
	case err != nil && !was:
		s.logger().Warn("not ready", "check", name, "err", err)
	case err == nil && was:
		s.logger().Info("ready again", "check", name)
	}
}

// connectivityProbe reports whether r is a client's check that its base
// URL answers, not an API call: Claude Code sends HEAD / (and, in some
// versions, GET or HEAD /api/hello) to ANTHROPIC_BASE_URL before its
// first request, and reads anything but a 2xx as the endpoint being down.
// swc answers them itself, 200 without asking an upstream or a key.
func connectivityProbe(r *http.Request) bool {
	switch r.URL.Path {
	case "/":
		return r.Method == http.MethodHead
	case "/api/hello":
		return r.Method == http.MethodHead || r.Method == http.MethodGet
	}
	return false
}
