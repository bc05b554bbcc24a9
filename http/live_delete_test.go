package http_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/gist"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/internal/transcript"
	"github.com/swcmem/swc/sleep"
)

// pausingStore is a Store whose Messages, once armed, waits until
// released: a read or a job caught in the middle.
type pausingStore struct {
	swc.Store
	mu      sync.Mutex
	armed   bool
	reached chan struct{}
	release chan struct{}
}

func (p *pausingStore) arm() {
	p.mu.Lock()
	p.armed, p.reached, p.release = true, make(chan struct{}), make(chan struct{})
	p.mu.Unlock()
}

func (p *pausingStore) Messages(ctx context.Context, tenant, conv string) ([]swc.StoredMessage, error) {
	msgs, err := p.Store.Messages(ctx, tenant, conv)
	p.mu.Lock()
	armed := p.armed
	p.armed = false
	p.mu.Unlock()
	if armed {
		close(p.reached)
		<-p.release
	}
	return msgs, err
}

func userWire(texts ...string) []json.RawMessage {
	var out []json.RawMessage
	for _, s := range texts {
		b, _ := json.Marshal(map[string]string{"role": "user", "content": s, "timestamp": "2023-05-08T13:56:00Z"})
		out = append(out, b)
	}
	return out
}

// TestLiveDeleteInFlightRead: a context read in flight during DELETE is
// not cached, and a conversation re-created under the same id is never
// served the deleted text.
func TestLiveDeleteInFlightRead(t *testing.T) {
	backends(t, func(t *testing.T, backend string) {
		var ps *pausingStore
		e := newLiveEnv(t, backend, 1, func(_ *swchttp.Server, mem *sleep.Service) {
			ps = &pausingStore{Store: mem.Store}
			mem.Store = ps
		})
		if code, body := e.appendWire(0, "c", userWire("my secret is the blue door")); code != http.StatusCreated {
			t.Fatalf("append: %d %s", code, body)
		}
		ps.arm()
		done := make(chan string)
		go func() {
			_, body := e.do(0, http.MethodGet, "/v1/conversations/c/context", nil)
			done <- string(body)
		}()
		<-ps.reached // the read has the deleted text in hand
		if code, body := e.do(0, http.MethodDelete, "/v1/conversations/c", nil); code != http.StatusNoContent {
			t.Fatalf("delete: %d %s", code, body)
		}
		if code, body := e.appendWire(0, "c", userWire("nothing to see here")); code != http.StatusCreated {
			t.Fatalf("re-create: %d %s", code, body)
		}
		close(ps.release)
		<-done
		for range 2 {
			_, body := e.do(0, http.MethodGet, "/v1/conversations/c/context", nil)
			if strings.Contains(string(body), "blue door") {
				t.Fatalf("after the DELETE, a read of the re-created conversation serves the deleted text: %s", body)
			}
		}
	})
}

// blockingGister waits for release before its first gist.
type blockingGister struct {
	once    sync.Once
	reached chan struct{}
	release chan struct{}
	g       swc.Gister
}

func (b *blockingGister) Name() string { return "blocking" }

func (b *blockingGister) Gist(ctx context.Context, req swc.GistRequest) (string, error) {
	b.once.Do(func() {
		close(b.reached)
		<-b.release
	})
	return b.g.Gist(ctx, req)
}

// TestLiveDeleteDuringConsolidation: a consolidation that read a
// conversation before a DELETE writes nothing (gists, counters) into a
// conversation re-created under the same id.
func TestLiveDeleteDuringConsolidation(t *testing.T) {
	backends(t, func(t *testing.T, backend string) {
		bg := &blockingGister{reached: make(chan struct{}), release: make(chan struct{}), g: gist.NewExtractive()}
		var mem *sleep.Service
		e := newLiveEnv(t, backend, 1, func(_ *swchttp.Server, m *sleep.Service) { m.Gister, m.Budget, mem = bg, 1000, m })
		wire := agentTranscript(t, 0, 6, transcript.Options{Timestamps: true}).Wire
		if code, body := e.appendWire(0, "c", wire); code != http.StatusCreated {
			t.Fatalf("append: %d %s", code, body)
		}
		errc := make(chan error, 1)
		go func() {
			_, err := mem.Consolidate(context.Background(), e.tenant, "c")
			errc <- err
		}()
		select {
		case <-bg.reached:
		case err := <-errc:
			t.Fatalf("consolidation made no gist: %v", err)
		}
		if code, body := e.do(0, http.MethodDelete, "/v1/conversations/c", nil); code != http.StatusNoContent {
			t.Fatalf("delete: %d %s", code, body)
		}
		if code, body := e.appendWire(0, "c", userWire("a new conversation")); code != http.StatusCreated {
			t.Fatalf("re-create: %d %s", code, body)
		}
		close(bg.release)
		err := <-errc
		gists, _ := e.store.Gists(context.Background(), e.tenant, "c")
		info, _ := e.store.Conversation(context.Background(), e.tenant, "c")
		t.Logf("consolidation: %v; the re-created conversation has %d gists, consolidated messages %d, through %d", err, len(gists), info.ConsolidatedMessages, info.ConsolidatedThrough)
		if len(gists) > 0 || info.ConsolidatedMessages != 0 || info.ConsolidatedThrough != 0 {
			t.Fatalf("the deleted conversation's consolidation was written into the re-created one: %d gists, counters %d/%d",
				len(gists), info.ConsolidatedMessages, info.ConsolidatedThrough)
		}
		if swc.ErrorCode(err) != swc.ENOTFOUND {
			t.Errorf("the consolidation's error %v, want not_found", err)
		}
	})
}
