package sqlite

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
)

// workload writes and reads a deterministic set of entries; every value is a
// function of its key, so concurrent writers of one key agree.
type workload struct {
	shared, own int // gist keys common to all workers, and per worker
}

func sharedGistText(i int) string { return fmt.Sprintf("gist of shared chunk %d", i) }

func gistReq(i int) swc.GistRequest {
	v := swc.GistFull
	if i%2 == 1 {
		v = swc.GistTemporal
	}
	return swc.GistRequest{Variant: v, Date: fmt.Sprintf("day %d", i/2), Text: fmt.Sprintf("chunk %d", i/2)}
}

// sharedKey is the REM key of shared chunk i.
func sharedKey(i int) swc.GistKey {
	req := gistReq(i)
	return swc.GistKey{Variant: req.Variant, Gister: "fake:gister", PromptHash: promptHashes(req.Variant), ContentHash: req.ContentHash()}
}

func ownKey(worker string, i int) swc.GistKey {
	return swc.GistKey{Variant: "full", Gister: "own", PromptHash: "p", ContentHash: Hash(fmt.Sprintf("%s-%d", worker, i))}
}

func respReq(i int) swc.LLMRequest {
	return swc.LLMRequest{Messages: []swc.Message{{Role: swc.RoleUser, Content: fmt.Sprintf("q%d", i)}}, MaxTokens: 10}
}

func embedText(i int) string { return fmt.Sprintf("text %d", i) }

func embedVec(s string) []float32 { return []float32{float32(len(s)), float32(s[len(s)-1]), 0.5} }

// run does the workload as one worker. reverse walks the shared keys
// backwards, so two workers meet in the middle. It returns the first error.
func (w workload) run(ctx context.Context, db *DB, worker string, reverse bool) error {
	l := CachedLLM(&mock.LLM{ID: "fake:llm", CompleteFn: func(_ context.Context, req swc.LLMRequest) (swc.LLMResponse, error) {
		return swc.LLMResponse{Text: "re " + req.Messages[0].Content, Model: "m", Usage: swc.Usage{InputTokens: 3, OutputTokens: 2, Calls: 1}}, nil
	}}, db)
	e := CachedEmbedder(&mock.Embedder{ID: "fake:embed", EmbedFn: func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, s := range texts {
			out[i] = embedVec(s)
		}
		return out, nil
	}}, db)

	var batch []string
	for n := range w.shared {
		i := n
		if reverse {
			i = w.shared - 1 - n
		}
		// What gist.Cached does: look up, and store the gist on a miss.
		k := sharedKey(i)
		got, ok, err := db.Gist(ctx, k)
		if err == nil && !ok {
			got, err = sharedGistText(i), db.PutGist(ctx, k, sharedGistText(i))
		}
		if err != nil {
			return fmt.Errorf("%s: gist %d: %w", worker, i, err)
		}
		if got != sharedGistText(i) {
			return fmt.Errorf("%s: gist %d = %q", worker, i, got)
		}
		r, err := l.Complete(ctx, respReq(i))
		if err != nil {
			return fmt.Errorf("%s: complete %d: %w", worker, i, err)
		}
		if r.Text != fmt.Sprintf("re q%d", i) {
			return fmt.Errorf("%s: response %d = %q", worker, i, r.Text)
		}
		batch = append(batch, embedText(i))
		if len(batch) == 25 || n == w.shared-1 {
			vecs, err := e.Embed(ctx, batch)
			if err != nil {
				return fmt.Errorf("%s: embed: %w", worker, err)
			}
			for j, s := range batch {
				if fmt.Sprint(vecs[j]) != fmt.Sprint(embedVec(s)) {
					return fmt.Errorf("%s: vector of %q = %v", worker, s, vecs[j])
				}
			}
			batch = batch[:0]
		}
	}
	for i := range w.own {
		k := ownKey(worker, i)
		if err := db.PutGist(ctx, k, worker); err != nil {
			return fmt.Errorf("%s: put own %d: %w", worker, i, err)
		}
		if got, ok, err := db.Gist(ctx, k); err != nil || !ok || got != worker {
			return fmt.Errorf("%s: read own %d = %q, %v, %v", worker, i, got, ok, err)
		}
	}
	return nil
}

// verify checks that db holds exactly the entries of the workers.
func (w workload) verify(ctx context.Context, db *DB, workers []string) error {
	var check string
	if err := db.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil {
		return err
	}
	if check != "ok" {
		return fmt.Errorf("integrity_check = %q", check)
	}
	for _, c := range []struct {
		table string
		want  int
	}{
		{"gists", w.shared + w.own*len(workers)},
		{"responses", w.shared},
		{"embeddings", w.shared},
	} {
		var n int
		if err := db.db.QueryRowContext(ctx, "SELECT count(*) FROM "+c.table).Scan(&n); err != nil {
			return err
		}
		if n != c.want {
			return fmt.Errorf("%s has %d rows, want %d", c.table, n, c.want)
		}
	}
	texts := make([]string, w.shared)
	for i := range w.shared {
		if got, ok, err := db.Gist(ctx, sharedKey(i)); err != nil || !ok || got != sharedGistText(i) {
			return fmt.Errorf("shared gist %d = %q, %v, %v", i, got, ok, err)
		}
		rk, _ := NewResponseKey("fake:llm", respReq(i))
		if r, ok, err := db.Response(ctx, rk); err != nil || !ok || r.Text != fmt.Sprintf("re q%d", i) || r.InputTokens != 3 {
			return fmt.Errorf("response %d = %+v, %v, %v", i, r, ok, err)
		}
		texts[i] = embedText(i)
	}
	vecs, err := db.Embeddings(ctx, "fake:embed", texts)
	if err != nil {
		return err
	}
	for i, v := range vecs {
		if fmt.Sprint(v) != fmt.Sprint(embedVec(texts[i])) {
			return fmt.Errorf("vector %d = %v", i, v)
		}
	}
	for _, worker := range workers {
		for i := range w.own {
			if got, ok, err := db.Gist(ctx, ownKey(worker, i)); err != nil || !ok || got != worker {
				return fmt.Errorf("own gist %s/%d = %q, %v, %v", worker, i, got, ok, err)
			}
		}
	}
	return nil
}

func TestConcurrentGoroutines(t *testing.T) {
	db := openTest(t)
	w := workload{shared: 100, own: 20}
	var workers []string
	var wg sync.WaitGroup
	var failed atomic.Int32
	for n := range 12 {
		worker := fmt.Sprintf("g%d", n)
		workers = append(workers, worker)
		wg.Go(func() {
			if err := w.run(t.Context(), db, worker, n%2 == 1); err != nil {
				failed.Add(1)
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.FailNow()
	}
	// Each worker looked up every shared key and read its own back.
	s := db.Stats()
	if s.GistHits+s.GistMisses != int64(12*(w.shared+w.own)) || s.GistMisses < int64(w.shared) {
		t.Fatalf("stats %+v: want %d lookups and at least %d misses", s, 12*(w.shared+w.own), w.shared)
	}
	if err := w.verify(t.Context(), db, workers); err != nil {
		t.Fatal(err)
	}
}
