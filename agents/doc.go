// Package agents runs real coding-agent programs (Claude Code, Codex, the
// Gemini CLI, GitHub Copilot CLI, Qwen Code, opencode, pi, Continue's cn,
// the Cline CLI, the OpenAI Agents SDK, the Vercel AI SDK) through swc's
// compressing proxy against a scripted upstream on loopback.
//
// The upstream (Upstream) speaks the provider's protocol as the provider
// does — Anthropic Messages with thinking blocks and their signatures,
// OpenAI Responses with encrypted reasoning items, Chat Completions, each
// streamed or not — and drives the agent through a fixed loop: every
// answer calls one of the tools the request declares, reading one step
// file of a work directory, until Steps steps are done; then it answers
// with text holding Done. It checks every request it receives against the
// provider's rules (each tool call answered once and where the provider
// wants it, roles, the signed thinking of the turn being answered kept,
// reasoning items kept with their calls, at most four cache breakpoints,
// the fields swc does not own kept byte for byte, the agent's task sent as
// its own message) and records each breach.
// It checks swc's recall too: the tools go out as the agent's with
// swc_recall's fixed definition appended exactly when the request shows
// a handle, the agent never sees swc_recall, and once a run the upstream
// calls swc_recall with a handle it received and checks that swc's next
// request carries the original output's bytes (recall.go).
//
// MCPScript (mcp.go) is a second, smaller upstream: it makes Claude Code,
// with swc serve's /mcp added by `claude mcp add`, call swc's remember and
// search tools, and records what came back (TestClaudeCodeMCP).
//
// The tests (agents_test.go) start swc's proxy in-process with a default
// budget small enough to force compression, install nothing themselves
// (the pinned programs are in testdata/npm, installed by `npm ci` there),
// and fail on a breach, on an agent that does not finish its loop, and on
// a proxy that forwards as many tokens as the agent sent.
package agents
