package consolidate

import (
	"github.com/swc-project/swc"
	"github.com/swc-project/swc/tokens"
)

// sessionTokens is the rendered size of a whole session.
func sessionTokens(s *swc.Session) int {
	return tokens.CountCached(swc.RenderBlock(swc.Block{Session: s, Turns: s.Turns}))
}
