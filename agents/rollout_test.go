package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/trajectory"
)

// TestCodexRollout and TestGeminiCLISession: the session file the real
// agent writes (Codex: CODEX_HOME/sessions/…/rollout-*.jsonl; the Gemini
// CLI: ~/.gemini/tmp/PROJECT/chats/session-*.jsonl) is read by swc bench
// --trajectories as a body of the agent's own API; its replay holds as
// many requests as the upstream got, each within the API's rules, and
// the last of them holds the texts and tool outputs of the upstream's
// last request, in order — but Codex's instructions: the rollout records
// its base instructions whole, which Codex sends without the sections of
// tools a run does not offer (in exec mode, update_plan's), so the first
// text of each is compared by its opening alone.
func TestCodexRollout(t *testing.T) {
	sessionReplays(t, codex, ".codex/sessions/*/*/*/rollout-*.jsonl", "Codex", chat.Responses, "input")
}

func TestGeminiCLISession(t *testing.T) {
	sessionReplays(t, geminiCLI(), ".gemini/tmp/*/chats/session-*.jsonl", "Gemini CLI", chat.Gemini, "contents")
}

// TestOpencodeSession: opencode's database (~/.local/share/opencode/
// opencode.db, with its -wal file) is read the same way, each session
// with an answer a Messages body; the run's one session replays as the
// upstream's requests, its last holding the upstream's texts and tool
// outputs in order (the database keeps no system prompt, and the
// upstream's system is not compared).
func TestOpencodeSession(t *testing.T) {
	sessionReplays(t, opencode, ".local/share/opencode/opencode.db", "opencode", chat.Anthropic, "messages")
}

func sessionReplays(t *testing.T, a agent, glob, name string, format chat.Format, list string) {
	if testing.Short() {
		t.Skip("runs a real agent program; not with -short")
	}
	npmBin(t, a.bin)
	if a.needs != "" {
		t.Skip(a.needs)
	}
	rn := prepare(t, a, 0, 12, "")
	r := rn.start(t, rn.up.URL, "sk-direct")()
	rn.measure(&r, nil, nil)
	if !r.Finished {
		t.Fatalf("%s did not finish: %+v", a.name, r)
	}
	files, err := filepath.Glob(filepath.Join(rn.home, glob))
	if err != nil || len(files) != 1 {
		t.Fatalf("session files %v (%v): want one", files, err)
	}
	dir := t.TempDir()
	for _, f := range []string{files[0], files[0] + "-wal", files[0] + "-shm"} { // a database's companions
		data, err := os.ReadFile(f)
		if os.IsNotExist(err) && f != files[0] {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trs, _, err := trajectory.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 1 || trs[0].Agent != name || len(trs[0].Bodies) != 1 || trs[0].Bodies[0].Format != format {
		t.Fatalf("loaded %+v", trs)
	}
	rp, err := trajectory.NewReplay(trs[0].Name, trs[0].Bodies[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := rp.Len(); got != r.Loop {
		t.Fatalf("the session replays as %d requests; the upstream got %d", got, r.Loop)
	}
	t.Logf("%s's session file replays as %d requests, as many as the upstream got", a.name, rp.Len())
	var last []byte
	for i := range rp.Len() {
		q, err := rp.Request(i)
		if err != nil {
			t.Fatal(err)
		}
		if b := rp.Breaches(q.Body); len(b) > 0 {
			t.Errorf("request %d: breaches %q", i, b)
		}
		last = q.Body
	}
	got := rn.up.Received()
	want := texts(t, got[len(got)-1].Body, list)
	have := texts(t, last, list)
	if len(want) < 2*rn.steps {
		t.Errorf("the upstream's last request holds %d texts: want the %d steps' texts and outputs", len(want), rn.steps)
	}
	if format == chat.Responses && len(have) > 0 && len(want) > 0 {
		if o := min(len(want[0]), 1000); len(have[0]) < o || have[0][:o] != want[0][:o] {
			t.Errorf("the instructions differ in their opening:\n have %.300q\n want %.300q", have[0], want[0])
		}
		have[0] = want[0]
	}
	for i := range max(len(have), len(want)) {
		if i >= len(have) || i >= len(want) || have[i] != want[i] {
			t.Errorf("the last replayed request holds %d texts, the upstream's last request %d; text %d differs:\n have %.500q\n want %.500q", len(have), len(want), i, at(have, i), at(want, i))
			break
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// texts returns the strings under "text" and "output" members of a
// body's list (Responses' input, Gemini's contents; Messages' messages,
// and there "content" too: a tool result's), in order.
func texts(t *testing.T, body []byte, list string) []string {
	t.Helper()
	var b map[string]json.RawMessage
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b[list], &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := []string{"text", "output"}
			if list == "messages" {
				keys = append(keys, "content")
			}
			for _, k := range keys {
				if s, ok := x[k].(string); ok {
					out = append(out, s)
				}
			}
			for k, e := range x {
				if _, isString := e.(string); !isString || !slices.Contains(keys, k) {
					walk(e)
				}
			}
		}
	}
	walk(v)
	return out
}
