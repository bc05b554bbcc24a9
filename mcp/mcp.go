// Package mcp serves swc's memory to agents over the Model Context
// Protocol, on the official Go SDK (github.com/modelcontextprotocol/go-sdk):
// one memory a tenant's agents share, whatever client they run in. Its
// tools are
//
//   - search: the stored messages that answer a query, ranked as
//     swc-recall ranks turns (BM25 over the rendered turns, a reply
//     sharing its question's score), in one conversation or across the
//     tenant's, each with a handle;
//   - recall: the original text of a message by its handle;
//   - remember: a note appended to a conversation, as the append API
//     appends messages;
//   - conversations: the tenant's conversations.
//
// Every tool is scoped by the tenant its caller is: `swc mcp` serves one
// tenant over stdio (Fixed); the service's /mcp route takes it from the
// caller's key (FromToken). The package stands on the root package's
// Store; cmd/swc and http/ wire it.
package mcp

import (
	"context"
	"log/slog"
	"regexp"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/swcmem/swc"
)

// Defaults of Memory's bounds.
const (
	// DefaultMaxConversations bounds the conversations a search or a
	// tool-output recall across the tenant reads: the most recently active.
	DefaultMaxConversations = 100
	// DefaultMaxScan bounds the messages one search (or tool-output
	// recall) reads: the latest of each conversation, the most recently
	// active conversations first.
	DefaultMaxScan = 20000
	// DefaultMaxScanBytes bounds the content bytes one search (or
	// tool-output recall) reads, the same way: 8 MiB.
	DefaultMaxScanBytes = 8 << 20
	// DefaultMaxNote bounds a note's bytes (the service's default bound of
	// a message's content).
	DefaultMaxNote = 64 << 10
	// DefaultLimit and MaxLimit are search's default and largest limit.
	DefaultLimit = 10
	MaxLimit     = 50
	// PassageChars bounds a passage's text; recall returns it whole.
	PassageChars = 600
)

// ConversationID is the accepted form of a conversation id, the
// service's: 1–128 letters, digits, '.', '_', ':' and '-'.
var ConversationID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// Memory is swc's memory as MCP tools over a Store. Build it with New;
// the exported fields are optional settings to set before Server.
type Memory struct {
	store swc.Store

	// Now is the clock that stamps notes (time.Now).
	Now func() time.Time
	// Rule groups messages into sessions (swc.DefaultSessionRule), as
	// the service's appends do.
	Rule swc.SessionRule
	// Appended is called after remember stored a note (the service
	// enqueues the conversation's consolidation there); nil does nothing.
	Appended func(ctx context.Context, tenant, conv string, res swc.AppendResult)
	// MaxConversations, MaxScan, MaxScanBytes and MaxNote bound the
	// tools' work (DefaultMaxConversations, DefaultMaxScan,
	// DefaultMaxScanBytes, DefaultMaxNote).
	MaxConversations int
	MaxScan          int
	MaxScanBytes     int
	MaxNote          int
	// Logger gets the errors a tool hides from its caller (internal
	// ones); slog.Default when nil.
	Logger *slog.Logger
}

// New returns the memory over store.
func New(store swc.Store) *Memory {
	return &Memory{store: store, Rule: swc.DefaultSessionRule(),
		MaxConversations: DefaultMaxConversations, MaxScan: DefaultMaxScan, MaxScanBytes: DefaultMaxScanBytes, MaxNote: DefaultMaxNote}
}

func (m *Memory) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}

func (m *Memory) logger() *slog.Logger {
	if m.Logger == nil {
		return slog.Default()
	}
	return m.Logger
}

// TenantFunc returns the tenant id a tool call acts for, or an error that
// refuses the call.
type TenantFunc func(ctx context.Context, req *sdk.CallToolRequest) (string, error)

// Fixed serves one tenant (by id) to every caller: `swc mcp` over stdio,
// where whoever runs the process owns the database.
func Fixed(tenant string) TenantFunc {
	return func(context.Context, *sdk.CallToolRequest) (string, error) { return tenant, nil }
}

// FromToken takes the tenant from the bearer token the transport
// verified (auth.TokenInfo.UserID, which the service sets to the key's
// tenant id); a call without one is refused.
func FromToken(_ context.Context, req *sdk.CallToolRequest) (string, error) {
	if req.Extra == nil || req.Extra.TokenInfo == nil || req.Extra.TokenInfo.UserID == "" {
		return "", swc.Errorf(swc.EINVALID, "no tenant: the call carries no verified key")
	}
	return req.Extra.TokenInfo.UserID, nil
}

// Version is the implementation version the server reports.
const Version = "1"

// Server returns an MCP server with the memory's tools, each scoped by
// the tenant tenant returns for the call.
func (m *Memory) Server(tenant TenantFunc) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "swc", Title: "swc memory", Version: Version}, &sdk.ServerOptions{
		Instructions: "swc memory: the stored conversations of your tenant. search finds messages by words; " +
			"recall returns a message whole by its handle; remember appends a note to a conversation; " +
			"conversations lists them.",
	})
	// The tools act on the tenant's memory alone (a closed world); the
	// three that read change nothing, so calling them again is safe.
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	sdk.AddTool(s, &sdk.Tool{Name: "search", Description: searchDoc,
		Annotations: readOnly}, scoped(m, tenant, m.search))
	sdk.AddTool(s, &sdk.Tool{Name: "recall", Description: recallDoc,
		Annotations: readOnly}, scoped(m, tenant, m.recall))
	sdk.AddTool(s, &sdk.Tool{Name: "remember", Description: rememberDoc,
		Annotations: &sdk.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)}}, scoped(m, tenant, m.remember))
	sdk.AddTool(s, &sdk.Tool{Name: "conversations", Description: conversationsDoc,
		Annotations: readOnly}, scoped(m, tenant, m.conversations))
	return s
}

// scoped adapts a tool of the memory to the SDK: it resolves the tenant
// and turns errors into the tool's error result, hiding internal ones
// (logged) as the service hides them from an HTTP caller.
func scoped[In, Out any](m *Memory, tenant TenantFunc, f func(ctx context.Context, tenant string, in In) (Out, error)) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		var zero Out
		t, err := tenant(ctx, req)
		if err != nil {
			return nil, zero, err
		}
		out, err := f(ctx, t, in)
		if err != nil {
			// A coded error's message is for the caller (an unavailable
			// database says what, never where); what wraps it is not.
			switch code := swc.ErrorCode(err); code {
			case swc.EINVALID, swc.ENOTFOUND, swc.EUNAVAILABLE, swc.ECONFLICT:
				if code == swc.EUNAVAILABLE && ctx.Err() == nil {
					m.logger().Warn("mcp tool failed: unavailable", "tool", req.Params.Name, "err", err)
				}
				return nil, zero, swc.Errorf(code, "%s", swc.ErrorMessage(err))
			}
			if ctx.Err() == nil {
				m.logger().Error("mcp tool failed", "tool", req.Params.Name, "err", err)
			}
			return nil, zero, swc.Errorf(swc.EINTERNAL, "%s: internal error", req.Params.Name)
		}
		return nil, out, nil
	}
}

// checkConversation returns an EINVALID error naming field unless id is
// a conversation id.
func checkConversation(field, id string) error {
	if !ConversationID.MatchString(id) {
		if id == "" {
			return swc.Errorf(swc.EINVALID, "%s: empty; want a conversation id", field)
		}
		return swc.Errorf(swc.EINVALID, "%s: %q is not a conversation id (1–128 letters, digits, '.', '_', ':', '-')", field, id)
	}
	return nil
}
