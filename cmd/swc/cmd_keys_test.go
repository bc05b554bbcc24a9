package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestKeysCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "swc.db")
	key, stderr, err := run(t, nil, "keys", "create", "--db", db, "--tenant", "acme")
	if err != nil || !strings.HasPrefix(key, "swc_") || !strings.Contains(stderr, "shown once") {
		t.Fatalf("create: %q %q %v", key, stderr, err)
	}
	out, _, err := run(t, nil, "keys", "list", "--db", db)
	if err != nil || strings.Count(out, "\n") != 2 || strings.Contains(out, strings.TrimSpace(key)) {
		t.Fatalf("list (the key itself must not appear): %q %v", out, err)
	}
	id := strings.Fields(strings.Split(out, "\n")[1])[0]
	if _, _, err := run(t, nil, "keys", "revoke", "--db", db, id); err != nil {
		t.Fatal(err)
	}
	out, _, _ = run(t, nil, "keys", "list", "--db", db)
	if strings.HasSuffix(strings.TrimSpace(out), " -") {
		t.Errorf("revoked key listed as valid: %q", out)
	}
	if _, _, err := run(t, nil, "keys", "revoke", "--db", db, id); err == nil {
		t.Error("revoking twice succeeded")
	}
	for _, args := range [][]string{
		{"keys"}, {"keys", "rotate"}, {"keys", "create", "--db", db},
		{"serve", "--schedule", "end"}, {"serve", "--strategy", "sliding"}, {"serve", "--log-level", "loud"}, {"serve", "extra"},
	} {
		if _, _, err := run(t, nil, args...); exitCode(err) != 2 {
			t.Errorf("%v: err %v, want a usage error", args, err)
		}
	}
}
