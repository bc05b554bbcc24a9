package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/swcmem/swc/postgres/pgtest"
)

// TestMCPStdio runs swc mcp with an MCP client on its stdin and stdout,
// on SQLite and on Postgres: a note remembered is found by search, and
// the command ends when the client goes.
func TestMCPStdio(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testMCPStdio(t, filepath.Join(t.TempDir(), "swc.db")) })
	t.Run("postgres", func(t *testing.T) { testMCPStdio(t, pgtest.Schema(t)) })
}

func testMCPStdio(t *testing.T, db string) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb strings.Builder
	env := NewEnv(inR, outW, &errb, nil)
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), env, []string{"mcp", "--db", db, "--tenant", "me"})
		outW.Close()
	}()
	ctx := t.Context()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "remember", Arguments: map[string]any{"conversation": "notes", "text": "The spare key is under the blue flowerpot."}})
	if err != nil || res.IsError {
		t.Fatalf("remember: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": "where is the spare key"}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(text, `"handle":"m1@notes"`) || !strings.Contains(text, "blue flowerpot") {
		t.Errorf("search: %s", text)
	}
	cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("swc mcp: %v; stderr: %s", err, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("swc mcp did not end when its client went")
	}

	// The tenant is required.
	if _, _, err := run(t, nil, "mcp", "--db", db); err == nil || !strings.Contains(err.Error(), "--tenant") {
		t.Errorf("without --tenant: %v", err)
	}
}
