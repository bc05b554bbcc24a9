package trajectory

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// ocRow is a message of a fixture session: its data and its parts' data.
type ocRow struct {
	id, data string
	parts    []string
}

// writeOpencodeDB writes an opencode database (the tables and columns
// the bench reads, as opencode 1.18 names them) holding sessions.
func writeOpencodeDB(t *testing.T, path string, sessions map[string][]ocRow) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, title text NOT NULL, time_created integer NOT NULL)",
		"CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, data text NOT NULL)",
		"CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, data text NOT NULL)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	ids := slices.Sorted(maps.Keys(sessions)) // created in name order
	for n, s := range ids {
		msgs := sessions[s]
		if _, err := db.Exec("INSERT INTO session VALUES (?, 'p', NULL, 'a title', ?)", s, n); err != nil {
			t.Fatal(err)
		}
		for i, m := range msgs {
			if _, err := db.Exec("INSERT INTO message VALUES (?, ?, ?, ?)", m.id, s, i, m.data); err != nil {
				t.Fatal(err)
			}
			for k, p := range m.parts {
				if _, err := db.Exec("INSERT INTO part VALUES (?, ?, ?, ?, ?)", fmt.Sprintf("prt_%s_%02d", m.id, k), m.id, s, k, p); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

const (
	ocUser      = `{"role":"user","time":{"created":1}}`
	ocAnswer    = `{"role":"assistant","parentID":"msg_01","finish":"tool-calls","modelID":"claude-sonnet-4-6"}`
	ocStep      = `{"type":"step-start"}`
	ocStepEnd   = `{"type":"step-finish","reason":"tool-calls"}`
	ocTaskPart  = `{"type":"text","text":"Fix the failing test in pkg/orders."}`
	ocShellPart = `{"type":"tool","tool":"bash","callID":"%s","state":{"status":"completed","input":{"command":"%s"},"output":"%s","time":{"start":1,"end":2}}}`
)

// TestOpencodeSession: an opencode database (written here in the shape
// opencode 1.18 writes) is read as one trajectory per session with an
// answer, each the Messages body opencode sends: steps as assistant
// messages with their results after them; an ignored text, a plain-text
// file, a failed answer and reasoning without a signature left out; an
// error, a call left running and a cleared output as opencode words them;
// a compaction restarting the history at "What did we do so far?" with
// its summary; every request within the API's rules.
func TestOpencodeSession(t *testing.T) {
	main := []ocRow{
		{"msg_01", ocUser, []string{ocTaskPart, `{"type":"text","text":"(a reminder)","ignored":true}`, `{"type":"file","mime":"text/plain","filename":"a.txt","url":"file:///a.txt"}`,
			`{"type":"file","mime":"image/png","filename":"mock.png","url":"data:image/png;base64,iVBORw0K"}`, `{"type":"file","mime":"application/pdf","filename":"spec.pdf","url":"file:///spec.pdf"}`}},
		{"msg_02", ocAnswer, []string{ocStep,
			`{"type":"reasoning","text":"Look first.","metadata":{"anthropic":{"signature":"sig_1"}}}`,
			`{"type":"text","text":"Running the tests."}`,
			fmt.Sprintf(ocShellPart, "call_1", "go test ./pkg/orders", "--- FAIL: TestTotal (0.00s)\\norders_test.go:41: got 7, want 9"),
			ocStepEnd, ocStep,
			`{"type":"reasoning","text":"no signature here"}`,
			`{"type":"tool","tool":"read","callID":"call_2","state":{"status":"error","input":{"filePath":"pkg/orders/missing.go"},"error":"File not found: pkg/orders/missing.go"}}`,
			`{"type":"tool","tool":"read","callID":"call_3","state":{"status":"completed","input":{"filePath":"pkg/orders/total.go"},"output":"old bytes","time":{"start":1,"end":2,"compacted":5}}}`,
			ocStepEnd}},
		{"msg_03", `{"role":"assistant","parentID":"msg_01","error":{"name":"APIError","data":{"message":"overloaded"}}}`, []string{ocStep}},
		{"msg_04", ocAnswer, []string{ocStep,
			`{"type":"tool","tool":"bash","callID":"call_4","state":{"status":"running","input":{"command":"sleep 100"}}}`}},
		{"msg_05", ocUser, []string{`{"type":"text","text":"Keep going."}`}},
		{"msg_06", ocAnswer, []string{ocStep, `{"type":"text","text":"Fixed total.go:12; the test passes."}`, `{"type":"step-finish","reason":"stop"}`}},
	}
	compacted := []ocRow{
		{"msg_b1", ocUser, []string{ocTaskPart}},
		{"msg_b2", ocAnswer, []string{ocStep, fmt.Sprintf(ocShellPart, "call_1", "ls", "OLD OUTPUT")}},
		{"msg_b3", ocUser, []string{`{"type":"compaction","auto":true}`}},
		{"msg_b4", `{"role":"assistant","parentID":"msg_b3","summary":true,"finish":"stop"}`, []string{ocStep, `{"type":"text","text":"We listed pkg/orders."}`}},
		{"msg_b5", ocUser, []string{`{"type":"text","text":"Continue."}`}},
		{"msg_b6", ocAnswer, []string{ocStep, fmt.Sprintf(ocShellPart, "call_2", "go test ./...", "ok")}},
		{"msg_b7", ocAnswer, []string{ocStep, `{"type":"text","text":"Done."}`}},
	}
	tail := []ocRow{
		{"msg_d1", ocUser, []string{ocTaskPart}},
		{"msg_d2", ocAnswer, []string{ocStep, fmt.Sprintf(ocShellPart, "call_1", "ls", "EARLY OUTPUT")}},
		{"msg_d3", ocUser, []string{`{"type":"text","text":"Now the tail."}`}},
		{"msg_d4", ocAnswer, []string{ocStep, fmt.Sprintf(ocShellPart, "call_2", "cat total.go", "TAIL OUTPUT")}},
		{"msg_d5", ocUser, []string{`{"type":"compaction","auto":true,"tail_start_id":"msg_d3"}`}},
		{"msg_d6", `{"role":"assistant","parentID":"msg_d5","summary":true,"finish":"stop"}`, []string{ocStep, `{"type":"text","text":"Summary so far."}`}},
		{"msg_d7", ocUser, []string{`{"type":"text","text":"After it."}`}},
		{"msg_d8", ocAnswer, []string{ocStep, `{"type":"text","text":"Done."}`}},
	}
	unanswered := []ocRow{{"msg_c1", ocUser, []string{ocTaskPart}}}
	dir := t.TempDir()
	writeOpencodeDB(t, filepath.Join(dir, "opencode.db"), map[string][]ocRow{"ses_a": main, "ses_b": compacted, "ses_c": unanswered, "ses_d": tail})
	trs, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 3 || trs[0].Name != "opencode-ses_a" || trs[1].Name != "opencode-ses_b" || trs[0].Agent != "opencode" || trs[0].Bodies[0].Format != chat.Anthropic {
		var names []string
		for _, tr := range trs {
			names = append(names, tr.Name+" "+tr.Agent)
		}
		t.Fatalf("loaded %d trajectories: %v", len(trs), names)
	}
	for _, tc := range []struct {
		tr       Trajectory
		shape    string
		requests int
		has, not []string
	}{
		{trs[0], "user(text,image,text) assistant(thinking,text,tool_use) user(tool_result) assistant(tool_use,tool_use) user(tool_result,tool_result) assistant(tool_use) user(tool_result,text) assistant(text)", 4,
			[]string{`"signature":"sig_1"`, `"is_error":true,"tool_use_id":"call_2","type":"tool_result","content":"File not found`, `[Old tool result content cleared]`, `[Tool execution was interrupted]`, `[Attached application/pdf: spec.pdf]`, `orders_test.go:41: got 7, want 9`},
			[]string{"(a reminder)", "a.txt", "no signature here", "old bytes", "overloaded"}},
		{trs[1], "user(text) assistant(text) user(text) assistant(tool_use) user(tool_result) assistant(text)", 3,
			[]string{"What did we do so far?", "We listed pkg/orders."},
			[]string{"OLD OUTPUT", "Fix the failing test"}},
		// A compaction that kept a tail: the summary, then the tail, then
		// what came after the summary.
		{trs[2], "user(text) assistant(text) user(text) assistant(tool_use) user(tool_result,text) assistant(text)", 3,
			[]string{"What did we do so far?", "Summary so far.", "Now the tail.", "TAIL OUTPUT", "After it."},
			[]string{"EARLY OUTPUT", "Fix the failing test"}},
	} {
		body := string(tc.tr.Bodies[0].Data)
		if got := messagesShape(t, tc.tr.Bodies[0].Data); got != tc.shape {
			t.Errorf("%s: messages\n %s\nwant\n %s", tc.tr.Name, got, tc.shape)
		}
		for _, s := range tc.has {
			if !strings.Contains(normalized(t, body), s) {
				t.Errorf("%s: the body lacks %s: %s", tc.tr.Name, s, body)
			}
		}
		for _, s := range tc.not {
			if strings.Contains(body, s) {
				t.Errorf("%s: the body holds %s", tc.tr.Name, s)
			}
		}
		replaysClean(t, tc.tr.Name, tc.tr.Bodies[0], tc.requests)
	}
}

// normalized returns body with its objects' members in name order but
// "content" last, as json.Marshal writes a map (so that a test can look
// for a tool result's members in one string).
func normalized(t *testing.T, body string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = walk(x[k])
			}
			if c, ok := x["content"]; ok && x["type"] == "tool_result" {
				delete(x, "content")
				b, _ := json.Marshal(x)
				cb, _ := json.Marshal(c)
				return json.RawMessage(strings.TrimSuffix(string(b), "}") + `,"content":` + string(cb) + "}")
			}
		}
		return v
	}
	b, _ := json.Marshal(walk(v))
	return string(b)
}

// TestOpencodeBadDatabase: a *.db file that is not opencode's, or one
// whose sessions hold no answer, is an EINVALID error naming the file.
func TestOpencodeBadDatabase(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		write      func(t *testing.T, path string)
	}{
		{"other", "not an opencode database", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("CREATE TABLE notes (id text)"); err != nil {
				t.Fatal(err)
			}
		}},
		{"unanswered", "no session the model answered", func(t *testing.T, path string) {
			writeOpencodeDB(t, path, map[string][]ocRow{"ses_a": {{"msg_01", ocUser, []string{ocTaskPart}}}})
		}},
		{"garbage", "opencode", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("not a database at all, just text"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, tc.name+".db")
		tc.write(t, path)
		_, _, err := Load(dir)
		if swc.ErrorCode(err) != swc.EINVALID || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want EINVALID naming %s and %q", tc.name, err, path, tc.want)
		}
	}
}

// TestOpencodeHash checks the data's hash of a directory holding an
// opencode database and a JSON trajectory: the files' names, sizes and
// bytes, the database streamed rather than read whole, so a resumed run
// matches one made when it was read whole; a changed database changes it.
func TestOpencodeHash(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "opencode.db")
	writeOpencodeDB(t, db, map[string][]ocRow{"ses_a": {
		{"msg_01", ocUser, []string{ocTaskPart}},
		{"msg_02", ocAnswer, []string{ocStep, `{"type":"text","text":"Done."}`}},
	}})
	run := []byte(`{"name":"r","openai":{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":"ok"}]}}`)
	if err := os.WriteFile(filepath.Join(dir, "a.json"), run, 0o644); err != nil {
		t.Fatal(err)
	}
	_, got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "a.json\x00%d\x00", len(run))
	h.Write(run)
	fmt.Fprintf(h, "opencode.db\x00%d\x00", len(data))
	h.Write(data)
	if want := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Fatalf("hash %s, want %s (names, sizes and bytes in name order)", got, want)
	}
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	writeOpencodeDB(t, db, map[string][]ocRow{"ses_b": {
		{"msg_01", ocUser, []string{ocTaskPart}},
		{"msg_02", ocAnswer, []string{ocStep, `{"type":"text","text":"Done again."}`}},
	}})
	if _, again, err := Load(dir); err != nil || again == got {
		t.Fatalf("a changed database: hash %s (before %s), err %v", again, got, err)
	}
}
