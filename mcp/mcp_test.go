package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/internal/golden"
	"github.com/swcmem/swc/mcp"
	"github.com/swcmem/swc/postgres"
	"github.com/swcmem/swc/postgres/pgtest"
	"github.com/swcmem/swc/sqlite"
)

// backends are the stores the tools are tested on: SQLite always,
// Postgres when $SWC_TEST_POSTGRES names a server (in CI always).
var backends = []struct {
	name string
	open func(t testing.TB) swc.Store
}{
	{"sqlite", func(t testing.TB) swc.Store {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "swc.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}},
	{"postgres", func(t testing.TB) swc.Store {
		db, err := postgres.Open(context.Background(), pgtest.Schema(t), postgres.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}},
}

// clock is a fake clock starting at 1 May 2026, 09:00 UTC, a minute on
// at every reading.
func clock() func() time.Time {
	t := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(time.Minute)
		return t
	}
}

// connect returns a client session of the memory's server for tenant,
// over the SDK's in-memory transport.
func connect(t testing.TB, m *mcp.Memory, tenant string) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := m.Server(mcp.Fixed(tenant)).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool; it returns the structured answer decoded into out,
// or the error text of a tool error.
func call(t testing.TB, cs *sdk.ClientSession, tool string, args any, out any) (errText string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		if len(res.Content) == 0 {
			t.Fatalf("%s: an error without text", tool)
		}
		return res.Content[0].(*sdk.TextContent).Text
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		reflect.ValueOf(out).Elem().SetZero()
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v: %s", tool, err, b)
		}
	}
	// The text content is the same JSON, for clients that read only it.
	if len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != string(b) {
		t.Errorf("%s: text content is not the structured answer", tool)
	}
	return ""
}

// mustCall is call failing the test on a tool error.
func mustCall(t testing.TB, cs *sdk.ClientSession, tool string, args any, out any) {
	t.Helper()
	if e := call(t, cs, tool, args, out); e != "" {
		t.Fatalf("%s %v: %s", tool, args, e)
	}
}

func tenant(t *testing.T, s swc.Store, name string) string {
	t.Helper()
	tn, err := s.CreateTenant(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return tn.ID
}

// seed stores a two-session conversation "trip" for tenant, a tool call
// and its output in it.
func seed(t *testing.T, s swc.Store, tenant string) {
	t.Helper()
	d := func(day, h int) time.Time { return time.Date(2026, 4, day, h, 0, 0, 0, time.UTC) }
	msgs := []swc.Message{
		{ID: "1", Role: swc.RoleUser, Name: "Caroline", Content: "Where should we go in May?", Time: d(10, 9)},
		{ID: "2", Role: swc.RoleAssistant, Name: "Melanie", Content: "Somewhere warm by the sea, with old trams.", Time: d(10, 9)},
		{ID: "3", Role: swc.RoleUser, Name: "Caroline", Content: "I adopted a puppy called Biscuit last Saturday.", Time: d(20, 18)},
		{ID: "4", Role: swc.RoleAssistant, Content: "", ToolCalls: []swc.ToolCall{{ID: "call_1", Name: "weather", Arguments: `{"city":"Porto"}`}}, Time: d(20, 18)},
		{ID: "5", Role: swc.RoleTool, ToolCallID: "call_1", Content: "Porto: 24°C, sunny, light wind from the north-west all afternoon.", Time: d(20, 18)},
	}
	if _, err := s.AppendMessages(context.Background(), tenant, "trip", msgs, swc.AppendOptions{Now: clock()}); err != nil {
		t.Fatal(err)
	}
}

func TestListTools(t *testing.T) {
	s := backends[0].open(t)
	cs := connect(t, mcp.New(s), tenant(t, s, "acme"))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s: description, input or output schema missing", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"conversations", "recall", "remember", "search"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	// The tools as clients see them (names, descriptions, schemas) are
	// the MCP server's API: testdata/tools.golden shows a change.
	b, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/tools.golden", append(b, '\n'))
}

// TestMemory: a note remembered is found by search, recalled whole by its
// handle, and its conversation listed; a tool output is recalled by the
// proxy's handle; another tenant sees none of it.
func TestMemory(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			if b.name == "postgres" {
				pgtest.DSN(t)
			}
			s := b.open(t)
			acme, other := tenant(t, s, "acme"), tenant(t, s, "other")
			seed(t, s, acme)
			m := mcp.New(s)
			m.Now = func() time.Time { return time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC) }
			var appended []string
			m.Appended = func(_ context.Context, tenant, conv string, res swc.AppendResult) {
				appended = append(appended, tenant+"/"+conv)
			}
			cs := connect(t, m, acme)

			note := "The flight to Lisbon leaves on 7 May at 06:40 from gate B12; " + strings.Repeat("pack the charger. ", 40)
			var rem mcp.RememberOutput
			mustCall(t, cs, "remember", map[string]any{"conversation": "plans", "text": note, "speaker": "Caroline"}, &rem)
			if rem.Conversation != "plans" || rem.Seq != 1 || rem.Messages != 1 || rem.Sessions != 1 || rem.Handle != "m1@plans" {
				t.Errorf("remember: %+v", rem)
			}
			if want := []string{acme + "/plans"}; !slices.Equal(appended, want) {
				t.Errorf("Appended called for %v, want %v", appended, want)
			}

			var found mcp.SearchOutput
			mustCall(t, cs, "search", map[string]any{"query": "when does the Lisbon flight leave?"}, &found)
			if len(found.Passages) != 1 || found.Conversations != 2 || found.Messages != 6 || found.Bounded {
				t.Fatalf("search: %+v", found)
			}
			p := found.Passages[0]
			if p.Handle != rem.Handle || p.Conversation != "plans" || p.Message != rem.Message || p.Speaker != "Caroline" ||
				p.Date != "9:30 am on 1 May, 2026" || !p.Cut || len(p.Text) > mcp.PassageChars+len("…") || !strings.HasPrefix(note, strings.TrimSuffix(p.Text, "…")) || p.Score <= 0 {
				t.Errorf("search passage: %+v", p)
			}

			var got mcp.RecallOutput
			mustCall(t, cs, "recall", map[string]any{"handle": p.Handle}, &got)
			if got.Text != note || got.Speaker != "Caroline" || got.Role != "user" || got.Time != "2026-05-01T09:30:00Z" || got.Conversation != "plans" {
				t.Errorf("recall: %+v", got)
			}

			// A reply shares its question's score: "Where should we go in
			// May?" matches, and so does Melanie's answer after it (the
			// same score: the question first).
			mustCall(t, cs, "search", map[string]any{"query": "where to go", "conversation": "trip"}, &found)
			if len(found.Passages) != 2 || found.Passages[0].Message != "1" || found.Passages[1].Message != "2" || found.Passages[0].Score != found.Passages[1].Score ||
				found.Passages[0].Date != "9:00 am on 10 April, 2026" || found.Conversations != 1 {
				t.Errorf("search in trip: %+v", found)
			}
			// The tool call shows as the service's contexts show it.
			mustCall(t, cs, "search", map[string]any{"query": "weather Porto", "conversation": "trip", "limit": 1}, &found)
			if len(found.Passages) != 1 || found.Passages[0].Handle != "m4@trip" || found.Passages[0].Session != 1 ||
				found.Passages[0].Text != `[calls weather({"city":"Porto"})]` || found.Passages[0].Speaker != "Assistant" {
				t.Errorf("search weather: %+v", found)
			}

			// The proxy's handle of a tool output, in the conversation or
			// across the tenant's.
			h := mcp.ToolOutputHandle("call_1", "Porto: 24°C, sunny, light wind from the north-west all afternoon.")
			for _, args := range []map[string]any{{"handle": h}, {"handle": h, "conversation": "trip"}} {
				mustCall(t, cs, "recall", args, &got)
				if got.Text != "Porto: 24°C, sunny, light wind from the north-west all afternoon." || got.Role != "tool" || got.ToolCallID != "call_1" || got.Handle != h || got.Conversation != "trip" {
					t.Errorf("recall %v: %+v", args, got)
				}
			}

			var list mcp.ConversationsOutput
			mustCall(t, cs, "conversations", map[string]any{}, &list)
			if list.Total != 2 || len(list.Conversations) != 2 || list.Conversations[0].ID != "plans" || list.Conversations[1].ID != "trip" ||
				list.Conversations[1].Messages != 5 || list.Conversations[1].Sessions != 2 || list.Conversations[0].LastActivity != "2026-05-01T09:30:00Z" {
				t.Errorf("conversations: %+v", list)
			}

			// Another tenant sees nothing of it, and its note goes to a
			// conversation of its own.
			os := connect(t, m, other)
			mustCall(t, os, "search", map[string]any{"query": "Lisbon flight"}, &found)
			if len(found.Passages) != 0 || found.Conversations != 0 {
				t.Errorf("other tenant's search: %+v", found)
			}
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"search", map[string]any{"query": "Lisbon flight", "conversation": "plans"}},
				{"recall", map[string]any{"handle": rem.Handle}},
				{"recall", map[string]any{"handle": h}},
				{"recall", map[string]any{"handle": h, "conversation": "trip"}},
			} {
				if e := call(t, os, c.tool, c.args, nil); !strings.Contains(e, "no ") || strings.Contains(e, "Lisbon") || strings.Contains(e, "Porto") {
					t.Errorf("other tenant's %s %v: %q, want not found", c.tool, c.args, e)
				}
			}
			mustCall(t, os, "conversations", map[string]any{}, &list)
			if list.Total != 0 || len(list.Conversations) != 0 {
				t.Errorf("other tenant's conversations: %+v", list)
			}
			mustCall(t, os, "remember", map[string]any{"conversation": "plans", "text": "Lisbon is off."}, &rem)
			if rem.Seq != 1 || rem.Messages != 1 {
				t.Errorf("other tenant's remember: %+v", rem)
			}
			mustCall(t, cs, "recall", map[string]any{"handle": "m1@plans"}, &got)
			if got.Text != note {
				t.Errorf("acme's note after the other tenant's: %q", got.Text)
			}
			mustCall(t, os, "recall", map[string]any{"handle": "m1@plans"}, &got)
			if got.Text != "Lisbon is off." || got.Speaker != mcp.DefaultSpeaker {
				t.Errorf("the other tenant's note: %+v", got)
			}
		})
	}
}

// TestBadInput: every tool refuses bad arguments with an error naming
// the field.
func TestBadInput(t *testing.T) {
	s := backends[0].open(t)
	acme := tenant(t, s, "acme")
	seed(t, s, acme)
	m := mcp.New(s)
	m.MaxNote = 100
	cs := connect(t, m, acme)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string // in the error
	}{
		{"search", map[string]any{}, "query"},
		{"search", map[string]any{"query": "   "}, "query: empty"},
		{"search", map[string]any{"query": "the of and ?"}, "query: \"the of and ?\" has no words"},
		{"search", map[string]any{"query": 7}, "query"},
		{"search", map[string]any{"query": "puppy", "limit": 51}, "limit: 51; want 1 to 50"},
		{"search", map[string]any{"query": "puppy", "limit": -1}, "limit: -1"},
		{"search", map[string]any{"query": "puppy", "conversation": "bad id!"}, "conversation: \"bad id!\" is not a conversation id"},
		{"search", map[string]any{"query": "puppy", "conversation": "none"}, "none"},
		{"search", map[string]any{"query": "puppy", "bogus": 1}, "bogus"},
		{"recall", map[string]any{}, "handle"},
		{"recall", map[string]any{"handle": ""}, "handle: empty"},
		{"recall", map[string]any{"handle": "turn 3"}, "handle: \"turn 3\" is not a handle"},
		{"recall", map[string]any{"handle": "m0@trip"}, "handle: \"m0@trip\": the sequence number must be 1 or more"},
		{"recall", map[string]any{"handle": "m99@trip"}, "holds no live message 99"},
		{"recall", map[string]any{"handle": "m1@none"}, "none"},
		{"recall", map[string]any{"handle": "m1@trip", "conversation": "plans"}, "conversation: \"plans\", but handle \"m1@trip\" names conversation \"trip\""},
		{"recall", map[string]any{"handle": "h0123456789"}, "no tool output with handle"},
		{"recall", map[string]any{"handle": "hABCDEF0123"}, "is not a handle"},
		{"remember", map[string]any{"text": "x"}, "conversation"},
		{"remember", map[string]any{"conversation": "", "text": "x"}, "conversation: empty"},
		{"remember", map[string]any{"conversation": "a/b", "text": "x"}, "conversation: \"a/b\" is not a conversation id"},
		{"remember", map[string]any{"conversation": "plans"}, "text"},
		{"remember", map[string]any{"conversation": "plans", "text": " \n"}, "text: empty"},
		{"remember", map[string]any{"conversation": "plans", "text": strings.Repeat("x", 101)}, "text: 101 bytes; at most 100"},
		{"remember", map[string]any{"conversation": "plans", "text": "x", "speaker": "a: b"}, "speaker: \"a: b\""},
	} {
		e := call(t, cs, c.tool, c.args, nil)
		t.Logf("%s %v: %s", c.tool, c.args, e)
		if !strings.Contains(e, c.want) {
			t.Errorf("%s %v: error %q, want one containing %q", c.tool, c.args, e, c.want)
		}
	}
	// Nothing of the refused notes was stored.
	if _, err := s.Conversation(context.Background(), acme, "plans"); swc.ErrorCode(err) != swc.ENOTFOUND {
		t.Errorf("conversation plans: %v, want not found", err)
	}
}

// TestBounded: a search across the tenant reads the latest MaxScan
// messages (MaxScanBytes of them) of the most recently active
// MaxConversations conversations, and says so.
func TestBounded(t *testing.T) {
	s := backends[0].open(t)
	acme := tenant(t, s, "acme")
	m := mcp.New(s)
	m.Now = clock()
	cs := connect(t, m, acme)
	for _, n := range []struct{ conv, text string }{
		{"old", "The boat to Madeira sails on Friday."},
		{"mid", "The boat to Tenerife sails on Monday."},
		{"new", "The boat to Capri sails on Sunday."},
		{"new", "We booked the cabin."},
	} {
		mustCall(t, cs, "remember", map[string]any{"conversation": n.conv, "text": n.text}, nil)
	}
	var found mcp.SearchOutput
	mustCall(t, cs, "search", map[string]any{"query": "boat"}, &found)
	if len(found.Passages) != 3 || found.Bounded {
		t.Fatalf("unbounded: %+v", found)
	}
	m.MaxConversations = 2
	mustCall(t, cs, "search", map[string]any{"query": "boat"}, &found)
	if len(found.Passages) != 2 || !found.Bounded || found.Conversations != 2 || slices.ContainsFunc(found.Passages, func(p mcp.Passage) bool { return p.Conversation == "old" }) {
		t.Errorf("2 conversations: %+v", found)
	}
	m.MaxScan = 1
	mustCall(t, cs, "search", map[string]any{"query": "boat"}, &found)
	if len(found.Passages) != 0 || !found.Bounded || found.Messages != 1 {
		t.Errorf("1 message: %+v", found)
	}
	m.MaxScan, m.MaxScanBytes = 0, len("The boat to Capri sails on Sunday.")+len("We booked the cabin.")
	mustCall(t, cs, "search", map[string]any{"query": "boat"}, &found)
	if len(found.Passages) != 1 || found.Passages[0].Conversation != "new" || !found.Bounded || found.Messages != 2 {
		t.Errorf("bytes of 2 messages: %+v", found)
	}
	m.MaxScanBytes--
	mustCall(t, cs, "search", map[string]any{"query": "boat"}, &found)
	if len(found.Passages) != 0 || !found.Bounded || found.Messages != 1 {
		t.Errorf("bytes of 2 messages less one: %+v", found)
	}
}

// failing is a store whose reads fail as a driver's would.
type failing struct{ swc.Store }

func (failing) Conversations(context.Context, string) ([]swc.ConversationInfo, error) {
	return nil, errors.New("dial tcp 10.0.0.7:5432: connection refused")
}

func (failing) MessagesIn(context.Context, string, string, swc.MessageRange) ([]swc.StoredMessage, error) {
	return nil, fmt.Errorf("postgres: read messages: dial tcp 10.0.0.7:5432: %w", swc.Errorf(swc.EUNAVAILABLE, "the database is unavailable"))
}

// TestInternalError: a tool hides an internal error's words (logged) and
// says which tool failed; an unavailable database says so, never where.
func TestInternalError(t *testing.T) {
	s := backends[0].open(t)
	var log strings.Builder
	m := mcp.New(failing{s})
	m.Logger = slog.New(slog.NewTextHandler(&log, nil))
	cs := connect(t, m, tenant(t, s, "acme"))
	for _, tool := range []string{"search", "conversations"} {
		e := call(t, cs, tool, map[string]any{"query": "boat"}, nil)
		if tool == "conversations" {
			e = call(t, cs, tool, map[string]any{}, nil)
		}
		if e != tool+": internal error" {
			t.Errorf("%s: %q", tool, e)
		}
	}
	if e := call(t, cs, "recall", map[string]any{"handle": "m1@trip"}, nil); e != "the database is unavailable" {
		t.Errorf("recall: %q", e)
	}
	if n := strings.Count(log.String(), "connection refused"); n != 2 {
		t.Errorf("the log has %d of the 2 errors: %s", n, log.String())
	}
}
