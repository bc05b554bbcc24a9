package anthropic

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/retry"
)

var integration = flag.Bool("integration", false, "run the conformance suite against the real API (needs ANTHROPIC_API_KEY; model from SWC_TEST_ANTHROPIC_MODEL)")

// realLLM returns an LLM on the real API, skipping unless -integration is
// given and ANTHROPIC_API_KEY is set.
func realLLM(t *testing.T, model string) *LLM {
	t.Helper()
	key := os.Getenv("ANTHROPIC_API_KEY")
	if !*integration || key == "" {
		t.Skip("conformance suite: run with -integration and ANTHROPIC_API_KEY set")
	}
	if model == "" {
		model = os.Getenv("SWC_TEST_ANTHROPIC_MODEL")
	}
	if model == "" {
		model = testModel
	}
	l, err := New(model, key, Config{BaseURL: os.Getenv("ANTHROPIC_BASE_URL"), Config: retry.Config{Timeout: 30 * time.Second, MaxAttempts: 3}})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestIntegrationPing(t *testing.T) {
	l := realLLM(t, "")
	resp, err := l.Complete(context.Background(), swc.LLMRequest{
		System:    "Answer with one lowercase word.",
		Messages:  []swc.Message{{Role: swc.RoleUser, Content: "Reply with the single word: pong"}},
		MaxTokens: 16,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToLower(resp.Text), "pong") || resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens == 0 || resp.StopReason == "" {
		t.Errorf("reply %+v", resp)
	}
}

func TestIntegrationUnknownModel(t *testing.T) {
	l := realLLM(t, "claude-no-such-model")
	_, err := l.Complete(context.Background(), pingReq)
	if swc.ErrorCode(err) != swc.EINVALID || !strings.Contains(err.Error(), "after 1 attempt") {
		t.Errorf("err = %v, want EINVALID after 1 attempt", err)
	}
}
