package sleep

import (
	"context"
	"fmt"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
)

// Render compresses the given stored messages of a conversation (a prefix
// of its consolidated sessions; instructions are left out) to budget with
// the configured strategy, from the gists consolidation stored and the
// offline fallback for the rest, without calling any LLM. The same
// messages, gists and budget give the same text, byte for byte, which is
// what keeps a provider's prompt cache hitting between consolidations. It
// returns an empty context for no history and the strategy's error
// otherwise.
func (m *Service) Render(ctx context.Context, conv string, msgs []swc.StoredMessage, gists []swc.StoredGist, budget int) (*swc.Context, error) {
	c, _ := Conversation(logID, msgs)
	if len(c.Sessions) == 0 {
		return &swc.Context{Strategy: m.strategy(), Budget: budget}, nil
	}
	g := &storedGister{fallback: m.Fallback, gists: map[string]string{}}
	for _, sg := range gists {
		g.gists[string(sg.Variant)+"\x00"+sg.ContentHash] = sg.Text
	}
	strat, err := m.newStrategy(m.strategy(), g, consolidate.Schedule{Kind: consolidate.Through, At: len(c.Sessions)}, nil)
	if err != nil {
		return nil, err
	}
	out, err := strat.Compress(ctx, c, swc.CompressOptions{Budget: budget})
	if err != nil {
		return nil, fmt.Errorf("sleep: render: %w", err)
	}
	return out, nil
}
