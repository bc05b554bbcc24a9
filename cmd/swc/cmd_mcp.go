package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/swcmem/swc"
	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/mcp"
)

func init() {
	register("mcp", "the service's memory as an MCP server over stdio (search, recall, remember, conversations)", runMCP)
}

const mcpUsage = `--db swc.db|postgres://… --tenant NAME

Serves one tenant's stored conversations to an MCP client over stdio
(JSON-RPC on stdin and stdout; logs on stderr), with the tools search,
recall, remember and conversations (docs/recall.md). The database is swc
serve's, SQLite or Postgres; the tenant is made when new. A note
remembered here is consolidated by a swc serve on the same database (its
sweep finds it). For Claude Code:

  claude mcp add swc -- swc mcp --db swc.db --tenant me

swc serve offers the same tools at /mcp (streamable HTTP, the key's
tenant).`

func runMCP(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "mcp", mcpUsage)
	db := fs.String("db", "swc.db", "the service's SQLite file or postgres:// URL")
	tenant := fs.String("tenant", "", "the tenant whose memory is served (made when new)")
	gap := fs.Duration("session-gap", 30*time.Minute, "silence that starts a new session (as swc serve's)")
	turns := fs.Int("session-turns", 20, "messages after which a new session starts (as swc serve's)")
	maxNote := fs.Int("max-note", swchttp.DefaultMaxMessage, "largest note remember takes, bytes (as swc serve's --max-message)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *tenant == "" || fs.NArg() > 0 {
		return usagef("mcp: want --tenant NAME and no arguments")
	}
	be, err := openBackend(ctx, backendConfig{db: *db, pgConns: 4})
	if err != nil {
		return err
	}
	defer be.Close()
	t, err := be.store.TenantByName(ctx, *tenant)
	if swc.ErrorCode(err) == swc.ENOTFOUND {
		t, err = be.store.CreateTenant(ctx, *tenant)
	}
	if err != nil {
		return fmt.Errorf("mcp: tenant %q: %w", *tenant, err)
	}
	logger := slog.New(slog.NewTextHandler(env.Stderr, nil))
	m := mcp.New(be.store)
	m.Rule, m.MaxNote, m.Logger = swc.SessionRule{Gap: *gap, Turns: *turns}, *maxNote, logger
	err = m.Server(mcp.Fixed(t.ID)).Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(env.Stdin), Writer: nopWriteCloser{env.Stdout}})
	if ctx.Err() != nil {
		return nil // interrupted: a normal end
	}
	return err
}

// nopWriteCloser is stdout for the transport, which closes what it is
// given when the client goes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
