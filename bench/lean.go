package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/swcmem/swc"
)

// Lean returns what Summarize reads of a context: its strategy, budget,
// tokens and each chunk's session, tier and action; no text, drops or
// gists. A run over hundreds of conversations keeps these only.
func Lean(x *swc.Context) *swc.Context {
	out := &swc.Context{Strategy: x.Strategy, Budget: x.Budget, Tokens: x.Tokens, Chunks: make([]swc.ChunkReport, len(x.Chunks))}
	for i, ch := range x.Chunks {
		out.Chunks[i] = swc.ChunkReport{Session: ch.Session, Tier: ch.Tier, Action: ch.Action}
	}
	return out
}

// leanRecord is one line of DIR/context_stats.jsonl.
type leanRecord struct {
	Condition    string   `json:"condition"`
	Conversation string   `json:"conversation"`
	Tokens       int      `json:"tokens"`
	Tiers        []string `json:"tiers"`
	Actions      []string `json:"actions"`
}

// LeanStore is DIR/context_stats.jsonl: the lean context (Lean) of every
// condition and conversation a lean run compressed, appended as made, so
// that a rerun can skip compressing a conversation whose questions are all
// done and still summarise its context.
type LeanStore struct {
	path string
	mu   sync.Mutex
	f    *os.File
	m    map[[2]string]*swc.Context
}

// OpenLeanStore opens (creating) dir/context_stats.jsonl and reads what
// it holds; a torn last line is ignored.
func OpenLeanStore(dir string) (*LeanStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	s := &LeanStore{path: filepath.Join(dir, "context_stats.jsonl"), m: map[[2]string]*swc.Context{}}
	if f, err := os.Open(s.path); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var r leanRecord
			if json.Unmarshal(sc.Bytes(), &r) != nil || r.Condition == "" || len(r.Tiers) != len(r.Actions) {
				continue
			}
			x := &swc.Context{Strategy: r.Condition, Tokens: r.Tokens, Chunks: make([]swc.ChunkReport, len(r.Tiers))}
			for i := range r.Tiers {
				x.Chunks[i] = swc.ChunkReport{Session: i, Tier: swc.Tier(r.Tiers[i]), Action: swc.Action(r.Actions[i])}
			}
			s.m[[2]string{r.Condition, r.Conversation}] = x
		}
		err := sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("bench: read %s: %w", s.path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("bench: %w", err)
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	s.f = f
	return s, nil
}

// Get returns the lean context of (condition, conversation), if stored.
func (s *LeanStore) Get(condition, conv string) (*swc.Context, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.m[[2]string{condition, conv}]
	return x, ok
}

// Add appends the lean context of x (Lean) under (condition,
// conversation), one write call per line so that a kill tears at most the
// last, and returns it: the store and the run share it.
func (s *LeanStore) Add(condition, conv string, x *swc.Context) (*swc.Context, error) {
	r := leanRecord{Condition: condition, Conversation: conv, Tokens: x.Tokens, Tiers: make([]string, len(x.Chunks)), Actions: make([]string, len(x.Chunks))}
	for i, ch := range x.Chunks {
		r.Tiers[i], r.Actions[i] = string(ch.Tier), string(ch.Action)
	}
	line, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("bench: encode context stats: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("bench: write %s: %w", s.path, err)
	}
	lean := Lean(x)
	s.m[[2]string{condition, conv}] = lean
	return lean, nil
}

// Close syncs and closes the file.
func (s *LeanStore) Close() error {
	if err := s.f.Sync(); err != nil {
		s.f.Close()
		return fmt.Errorf("bench: sync %s: %w", s.path, err)
	}
	return s.f.Close()
}
