package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

// TestMigrateLiveBackfill: a database written by schema 2 (conversations
// of the proxy and of the append API, a call still open) migrates to the
// live-agent schema with every message's chain filled in: a proxied
// request going on from the stored history appends only its new message,
// the open call still takes its result, and versions go on from the
// highest one.
func TestMigrateLiveBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", dsn(path, "full"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:2] {
		if _, err := raw.ExecContext(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	old := []swc.Message{
		{Role: swc.RoleUser, Content: "What's the weather?"},
		{Role: swc.RoleAssistant, Content: "Let me look.", ToolCalls: []swc.ToolCall{{ID: "call_0", Name: "weather", Arguments: "{}"}}},
		{Role: swc.RoleTool, ToolCallID: "call_0", Content: "sunny"},
		{Role: swc.RoleAssistant, Content: "Sunny."},
		{Role: swc.RoleUser, Content: "And tomorrow?"},
		{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "call_0", Name: "weather", Arguments: `{"day":1}`}}},
	}
	stmts := []string{
		`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`,
		`INSERT INTO schema_version (version) VALUES (2)`,
		`INSERT INTO conversations (tenant_id, id, created_at, messages, sessions, last_time, last_session_len, version) VALUES ('t', 'p', 1, 6, 1, ` + strconv.FormatInt(ms(t0), 10) + `, 6, 7)`,
	}
	for _, q := range stmts {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range old {
		if _, err := raw.ExecContext(ctx, `INSERT INTO messages (tenant_id, conv_id, seq, msg_id, role, name, content, tool_calls, tool_call_id, time, session_key, session_n, received)
			VALUES ('t', 'p', ?, ?, ?, '', ?, ?, ?, ?, '', 0, 1)`, i+1, "px_old"+strconv.Itoa(i), string(m.Role), m.Content, toolCalls(m.ToolCalls), m.ToolCallID, ms(t0)); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := func() time.Time { return t0.Add(time.Hour) }
	// The open call takes its result, whose id every turn reuses.
	res, err := db.AppendMessages(ctx, "t", "p", []swc.Message{{Role: swc.RoleTool, ToolCallID: "call_0", Content: "rain"}}, swc.AppendOptions{Now: now})
	if err != nil || res.Appended != 1 {
		t.Fatalf("the result of the open call: %+v, %v", res, err)
	}
	// The proxy resends the history plus one message: one is appended.
	hist := append(append([]swc.Message(nil), old...), swc.Message{Role: swc.RoleTool, ToolCallID: "call_0", Content: "rain"}, swc.Message{Role: swc.RoleUser, Content: "Thanks"})
	res, err = db.AppendMessages(ctx, "t", "p", hist, swc.AppendOptions{Mode: swc.AppendHistory, Now: now})
	if err != nil || res.Appended != 1 || res.Skipped != 7 || res.Superseded != 0 {
		t.Fatalf("a proxied request over the migrated history: %+v, %v", res, err)
	}
	info, _ := db.Conversation(ctx, "t", "p")
	if info.Messages != 8 || info.Version <= 7 || info.Generation == "" {
		t.Fatalf("after the migration: %+v", info)
	}
}
