package postgres

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/postgres/pgtest"
)

// The conformance suite runs over this store and sqlite/ in
// storetest/backends_test.go; these are the Postgres-only cases.

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), pgtest.Schema(t), Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

var t0 = time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)

// A replica that cached a context at some version must never see that
// version again for other content, not even after a delete and re-create.
func TestVersionNeverReused(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	tn, err := db.CreateTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for round := range 3 {
		m := swc.Message{ID: "m1", Role: swc.RoleUser, Content: "round", Time: t0.Add(time.Duration(round) * time.Minute)}
		if _, err := db.AppendMessages(ctx, tn.ID, "c", []swc.Message{m}, swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return t0 }}); err != nil {
			t.Fatal(err)
		}
		info, err := db.Conversation(ctx, tn.ID, "c")
		if err != nil {
			t.Fatal(err)
		}
		if seen[info.Version] {
			t.Fatalf("round %d: version %d reused", round, info.Version)
		}
		seen[info.Version] = true
		if err := db.DeleteConversation(ctx, tn.ID, "c"); err != nil {
			t.Fatal(err)
		}
	}
}

// Replicas starting together migrate once; both open.
func TestMigrateConcurrently(t *testing.T) {
	dsn := pgtest.Schema(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			db, err := Open(context.Background(), dsn, Config{})
			if err == nil {
				db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	db2, err := Open(context.Background(), dsn, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if v, err := db2.Version(context.Background()); err != nil || v != SchemaVersion() {
		t.Fatalf("version = %d, %v; want %d", v, err, SchemaVersion())
	}
}

// A server that cannot be reached is EUNAVAILABLE (the HTTP layer's 503).
func TestUnreachableIsUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	pool, err := pgxpool.New(context.Background(), "postgres://swc@"+addr+"/swc?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	db := &DB{pool: pool}
	_, err = db.Conversation(context.Background(), "t", "c")
	if swc.ErrorCode(err) != swc.EUNAVAILABLE {
		t.Fatalf("error %v: code %q, want %q", err, swc.ErrorCode(err), swc.EUNAVAILABLE)
	}
	_, err = db.AppendMessages(context.Background(), "t", "c", []swc.Message{{Content: "x", Time: t0}}, swc.AppendOptions{Rule: swc.DefaultSessionRule(), Now: func() time.Time { return t0 }})
	if swc.ErrorCode(err) != swc.EUNAVAILABLE {
		t.Fatalf("append: error %v: code %q, want %q", err, swc.ErrorCode(err), swc.EUNAVAILABLE)
	}
	if _, err := Open(context.Background(), "postgres://nobody@"+addr+"/x?sslmode=disable", Config{ConnectTimeout: time.Second}); swc.ErrorCode(err) != swc.EUNAVAILABLE {
		t.Fatalf("Open: %v", err)
	}
}
