package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/postgres/pgtest"
)

// TestMigrateLiveBackfill: a database written by schema 3 migrates to the
// live-agent schema with every message's chain filled in: a proxied
// request going on from the stored history appends only its new message,
// and the call left open still takes its result.
func TestMigrateLiveBackfill(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Schema(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:3] {
		if _, err := conn.Exec(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	old := []swc.Message{
		{Role: swc.RoleUser, Content: "What's the weather?"},
		{Role: swc.RoleAssistant, Content: "Let me look.", ToolCalls: []swc.ToolCall{{ID: "call_0", Name: "weather", Arguments: "{}"}}},
		{Role: swc.RoleTool, ToolCallID: "call_0", Content: "sunny"},
		{Role: swc.RoleUser, Content: "And tomorrow?"},
		{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "call_0", Name: "weather", Arguments: `{"day":1}`}}},
	}
	for _, q := range []string{
		`CREATE TABLE swc_schema_version (version integer NOT NULL)`,
		`INSERT INTO swc_schema_version (version) VALUES (3)`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, `INSERT INTO conversations (tenant_id, id, created_at, messages, sessions, last_time, last_session_len, version)
		VALUES ('t', 'p', 1, $1, 1, $2, $1, nextval('conv_version'))`, len(old), ms(t0)); err != nil {
		t.Fatal(err)
	}
	for i, m := range old {
		if _, err := conn.Exec(ctx, `INSERT INTO messages (tenant_id, conv_id, seq, msg_id, role, name, content, tool_calls, tool_call_id, time, session_key, session_n, received)
			VALUES ('t', 'p', $1, '', $2, '', $3, $4, $5, $6, '', 0, 1)`, i+1, string(m.Role), m.Content, toolCalls(m.ToolCalls), m.ToolCallID, ms(t0)); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close(ctx)

	db, err := Open(ctx, dsn, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := func() time.Time { return t0.Add(time.Hour) }
	res, err := db.AppendMessages(ctx, "t", "p", []swc.Message{{Role: swc.RoleTool, ToolCallID: "call_0", Content: "rain"}}, swc.AppendOptions{Now: now})
	if err != nil || res.Appended != 1 {
		t.Fatalf("the result of the open call: %+v, %v", res, err)
	}
	hist := append(append([]swc.Message(nil), old...), swc.Message{Role: swc.RoleTool, ToolCallID: "call_0", Content: "rain"}, swc.Message{Role: swc.RoleUser, Content: "Thanks"})
	res, err = db.AppendMessages(ctx, "t", "p", hist, swc.AppendOptions{Mode: swc.AppendHistory, Now: now})
	if err != nil || res.Appended != 1 || res.Skipped != 6 || res.Superseded != 0 {
		t.Fatalf("a proxied request over the migrated history: %+v, %v", res, err)
	}
	if info, _ := db.Conversation(ctx, "t", "p"); info.Messages != 7 || info.Generation == "" {
		t.Fatalf("after the migration: %+v", info)
	}
}
