// Package memory is the one import an agent needs to keep its chat history
// inside a token budget with Salience-Weighted Consolidation:
//
//	c, err := memory.New(memory.DefaultOptions())
//	res, err := c.Compress(ctx, messages) // []swc.Message in, messages out
//	send(res.Messages)                    // ≤ Budget tokens, tool pairs intact
//
// Compress keeps every system and developer message verbatim and first,
// keeps the last KeepRecent messages unchanged (a tool call and its results
// are one unit, never split or orphaned), groups the older messages into
// sessions (chat.Sessionize) and compresses them with a strategy into one
// system message of consolidated history: session headers with dates, gists
// marked as summaries, dropped sessions marked "[Sessions 2–3 omitted]". The
// result never exceeds Options.Budget counted as documented on
// MessageOverhead, with the tokenizer Options.Tokenizer names.
//
// The engines are offline by default (extractive gister, lexical embedder).
// With an LLM gister, Compress honours ctx's deadline: the LLM attempt stops
// FallbackReserve before it, and the history is compressed by the offline
// engines instead (Result.Fallback says why), so a request is never sent
// over budget and never fails for lack of time.
//
// OpenAIMiddleware and AnthropicMiddleware wrap the official SDKs' clients
// (option.WithMiddleware) so that every request's history is compressed
// in-process.
package memory
