package consolidate

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
)

// countingCache is a PlanCache that counts hits.
type countingCache struct {
	mu   sync.Mutex
	m    map[[32]byte]any
	hits atomic.Int64
}

func (c *countingCache) Get(k [32]byte) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	if ok {
		c.hits.Add(1)
	}
	return v, ok
}

func (c *countingCache) Put(k [32]byte, v any, _ int, _ bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k] = v
}

// TestPlanCacheSameContexts: compressing a growing conversation (and each
// prefix twice, as a client re-sending it) with one shared PlanCache gives
// byte-identical contexts to compressing each prefix with no cache, under
// every schedule kind, and the cache is hit.
func TestPlanCacheSameContexts(t *testing.T) {
	c := testConversation(12, 6)
	for _, spec := range []string{"end", "reactive", "every-2", "idle:1h"} {
		t.Run(spec, func(t *testing.T) {
			sched, err := ParseSchedule(spec)
			if err != nil {
				t.Fatal(err)
			}
			cache := &countingCache{m: map[[32]byte]any{}}
			var embedCalls [2]atomic.Int64
			emptied := false
			mk := func(i int, pc PlanCache) *SWC {
				e := hashEmbedder()
				inner := e.Embed
				s := New("swc-full", &mock.Embedder{EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
					embedCalls[i].Add(1)
					return inner(context.Background(), texts)
				}}, &mock.Gister{GistFn: func(_ context.Context, req swc.GistRequest) (string, error) {
					if strings.Contains(req.Text, "of session 3 ") || strings.Contains(req.Text, "of session 6 ") { // mid-tier chunks that go for want of a gist
						return "", nil
					}
					return "gist: " + req.Text[:40], nil
				}}, swc.GistFull, countCaps)
				s.Schedule, s.Plans = sched, pc
				s.Config.High = 0.95 // mostly mid tier: gists
				return s
			}
			for n := 1; n <= len(c.Sessions); n++ {
				for range 2 {
					want, err := mk(0, nil).Compress(context.Background(), c.Upto(n), swc.CompressOptions{Budget: 400})
					if err != nil {
						t.Fatal(err)
					}
					got, err := mk(1, cache).Compress(context.Background(), c.Upto(n), swc.CompressOptions{Budget: 400})
					if err != nil {
						t.Fatal(err)
					}
					wj, _ := json.Marshal(want)
					gj, _ := json.Marshal(got)
					emptied = emptied || strings.Contains(string(wj), "the gist is empty")
					if string(wj) != string(gj) {
						t.Fatalf("%d sessions: cached context differs:\n got %s\nwant %s", n, gj, wj)
					}
				}
			}
			if !emptied {
				t.Errorf("no chunk was dropped for an empty gist: the test misses that path")
			}
			if cache.hits.Load() == 0 {
				t.Errorf("the cache was never hit")
			}
			if embedCalls[1].Load() >= embedCalls[0].Load() {
				t.Errorf("embedder calls with the cache %d, without %d", embedCalls[1].Load(), embedCalls[0].Load())
			}
		})
	}
}

// TestPlanKeys: a change to any field a plan reads changes the key of its
// session and every later one, and no earlier one.
func TestPlanKeys(t *testing.T) {
	base := testConversation(4, 3)
	s := New("swc-full", hashEmbedder(), lineGister(), swc.GistFull, countCaps)
	want := s.planKeys(base).chain
	if len(want) != 4 {
		t.Fatalf("%d keys", len(want))
	}
	if again := s.planKeys(testConversation(4, 3)).chain; again[3] != want[3] {
		t.Fatalf("the same conversation has two keys")
	}
	edits := map[string]func(c *swc.Conversation){
		"text":      func(c *swc.Conversation) { c.Sessions[2].Turns[1].Text += "!" },
		"speaker":   func(c *swc.Conversation) { c.Sessions[2].Turns[0].Speaker = "Cy" },
		"turn id":   func(c *swc.Conversation) { c.Sessions[2].Turns[0].ID = "x" },
		"image":     func(c *swc.Conversation) { c.Sessions[2].Turns[0].Image = &swc.Image{Caption: "a dog"} },
		"date text": func(c *swc.Conversation) { c.Sessions[2].DateText = "then" },
		"start":     func(c *swc.Conversation) { c.Sessions[2].Start = c.Sessions[2].Start.Add(1) },
		"index":     func(c *swc.Conversation) { c.Sessions[2].Index = 9 },
		"turns":     func(c *swc.Conversation) { c.Sessions[2].Turns = c.Sessions[2].Turns[:2] },
	}
	for name, edit := range edits {
		c := testConversation(4, 3)
		edit(c)
		got := s.planKeys(c).chain
		if got[0] != want[0] || got[1] != want[1] {
			t.Errorf("%s: an earlier session's key changed", name)
		}
		if got[2] == want[2] || got[3] == want[3] {
			t.Errorf("%s: the key of the edited session or a later one is unchanged", name)
		}
	}
	settings := map[string]func(s *SWC){
		"speakers": nil,
		"config":   func(s *SWC) { s.Config.High = 0.7 },
		"variant":  func(s *SWC) { s.Variant = swc.GistTemporal },
		"anchor":   func(s *SWC) { s.Anchor = func(text string, _ time.Time) string { return text } },
		"name":     func(s *SWC) { s.name = "swc-anchored" },
		"embedder": func(s *SWC) { s.Embedder = &mock.Embedder{ID: "other", EmbedFn: hashEmbed} },
	}
	for name, set := range settings {
		s2 := New("swc-full", hashEmbedder(), lineGister(), swc.GistFull, countCaps)
		c := testConversation(4, 3)
		if set == nil {
			c.SpeakerB = "Bo"
		} else {
			set(s2)
		}
		if got := s2.planKeys(c).chain; got[0] == want[0] {
			t.Errorf("%s: the key did not change", name)
		}
	}
}
