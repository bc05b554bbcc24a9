package openai

import (
	"context"
	"flag"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/retry"
)

var integration = flag.Bool("integration", false, "run the conformance suite against a real endpoint: OPENAI_API_KEY (and OPENAI_BASE_URL) for OpenAI, or SWC_TEST_OPENAI_BASE_URL for a keyless server; models from SWC_TEST_OPENAI_MODEL and SWC_TEST_OPENAI_EMBED_MODEL")

// realConfig returns the endpoint, key and models of the conformance suite,
// skipping unless -integration is given and an endpoint is configured.
func realConfig(t *testing.T) (cfg Config, key, chat, embed string) {
	t.Helper()
	key = os.Getenv("OPENAI_API_KEY")
	base := os.Getenv("SWC_TEST_OPENAI_BASE_URL")
	if base == "" {
		base = os.Getenv("OPENAI_BASE_URL")
	}
	if !*integration || (key == "" && base == "") {
		t.Skip("conformance suite: run with -integration and OPENAI_API_KEY or SWC_TEST_OPENAI_BASE_URL set")
	}
	chat, embed = os.Getenv("SWC_TEST_OPENAI_MODEL"), os.Getenv("SWC_TEST_OPENAI_EMBED_MODEL")
	if chat == "" {
		chat = "gpt-4o-mini"
	}
	if embed == "" {
		embed = "text-embedding-3-small"
	}
	return Config{BaseURL: base, Config: retry.Config{Timeout: 60 * time.Second, MaxAttempts: 3}}, key, chat, embed
}

func TestIntegrationChat(t *testing.T) {
	cfg, key, model, _ := realConfig(t)
	l, err := New(model, key, cfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := l.Complete(context.Background(), pingReq)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToLower(resp.Text), "pong") || resp.StopReason == "" {
		t.Errorf("reply %+v", resp)
	}
}

func TestIntegrationEmbed(t *testing.T) {
	cfg, key, _, model := realConfig(t)
	cfg.BatchSize = 2
	e, err := NewEmbedder(model, key, cfg)
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := e.Embed(context.Background(), []string{"a cat", "a kitten", "tax law"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 3 || len(vecs[0]) == 0 || len(vecs[0]) != len(vecs[2]) {
		t.Fatalf("got %d vectors", len(vecs))
	}
	if cos(vecs[0], vecs[1]) <= cos(vecs[0], vecs[2]) {
		t.Errorf("cat~kitten %.3f not above cat~tax %.3f", cos(vecs[0], vecs[1]), cos(vecs[0], vecs[2]))
	}
}

func TestIntegrationUnknownModel(t *testing.T) {
	cfg, key, _, _ := realConfig(t)
	l, _ := New("no-such-model-swc", key, cfg)
	_, err := l.Complete(context.Background(), pingReq)
	if swc.ErrorCode(err) != swc.EINVALID {
		t.Errorf("err = %v, want EINVALID", err)
	}
}

func cos(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}
