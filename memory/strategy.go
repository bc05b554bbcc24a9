package memory

import (
	"github.com/swcmem/swc"
	"github.com/swcmem/swc/embed"
	"github.com/swcmem/swc/gist"
	"github.com/swcmem/swc/mention"
)

// A Compressor offers the strategies of package strategy marked for it
// (strategy.ForCompressor): every condition but "full", which ignores the
// budget, and the question-aware ones (swc-recall, rag-bm25…), which build
// a context per question.

// offline returns the built-in engines: the extractive gister (keeping
// temporal sentences) and the lexical embedder.
func offline() (swc.Gister, swc.Embedder) {
	g := gist.NewExtractive()
	g.Temporal = mention.HasTemporal
	return g, embed.New()
}
