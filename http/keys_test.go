package http_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/swcmem/swc/client"
	swchttp "github.com/swcmem/swc/http"
)

// TestRevokeAtOnce: a key revoked through one replica is refused by that
// replica at once, while another replica on the same database that has
// it cached refuses it within its KeyCacheTTL; a tenant cannot revoke
// another tenant's key.
func TestRevokeAtOnce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	c := e.client("acme")
	spare := client.New(e.ts.URL, e.newKey("acme"))
	other := e.client("globex")
	// A second replica: another server over the same database.
	b := swchttp.New(e.db, e.mem, e.queue)
	b.KeyCacheTTL, b.Logger = time.Second, e.srv.Logger
	tsB := httptest.NewServer(b.Handler())
	t.Cleanup(tsB.Close)
	cB := client.New(tsB.URL, c.Key)
	for _, cl := range []*client.Client{c, cB} { // both replicas cache the key
		if _, err := cl.Conversations(ctx); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := c.Keys(ctx)
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys = %+v, %v; want acme's two", keys, err)
	}
	var id string // the id of c's key
	all, _ := e.db.Keys(ctx)
	for _, k := range all {
		if k.Hash == swchttp.HashKey(c.Key) {
			id = k.ID
		}
	}
	if err := other.RevokeKey(ctx, id); status(err) != 404 {
		t.Fatalf("another tenant revoked the key: %v", err)
	}
	if err := spare.RevokeKey(ctx, id); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	if _, err := c.Conversations(ctx); status(err) != 401 {
		t.Fatalf("the revoking replica still accepts the key: %v", err)
	}
	for {
		_, err := cB.Conversations(ctx)
		if status(err) == 401 {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(revoked) > b.KeyCacheTTL+500*time.Millisecond {
			t.Fatalf("the other replica accepts the key %v after its revocation (KeyCacheTTL %v)", time.Since(revoked), b.KeyCacheTTL)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := spare.Conversations(ctx); err != nil {
		t.Errorf("the tenant's other key stopped too: %v", err)
	}
	if keys, _ := spare.Keys(ctx); len(keys) != 2 || (keys[0].Revoked.IsZero() && keys[1].Revoked.IsZero()) {
		t.Errorf("keys after the revocation: %+v", keys)
	}
}
