// Package pgtest gives tests a Postgres to run against: the server named by
// $SWC_TEST_POSTGRES, with a fresh schema per test. Without it a test is
// skipped locally (with how to start one) and fails in CI (CI=true), where
// .ci/run starts a server.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/swcmem/swc/internal/skipnote"
)

// EnvVar names the variable holding the test server's DSN.
const EnvVar = "SWC_TEST_POSTGRES"

// HowTo says how to run the Postgres tests locally.
const HowTo = "start one with `export " + EnvVar + "=$(bash .ci/postgres.sh start)`, stop it with `bash .ci/postgres.sh stop`"

// DSN returns the test server's DSN, or skips t (fails it when CI=true)
// when there is none, saying so also without -v (skipnote).
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvVar)
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must start Postgres (.ci/run does, with .ci/postgres.sh)", EnvVar)
		}
		skipnote.Skip(t, "Postgres", EnvVar+" is not set, so the Postgres tests skip; "+HowTo)
	}
	return dsn
}

// Schema makes a fresh schema on the test server, dropped when t ends, and
// returns a DSN whose search_path is that schema: every table a test makes
// (ours and River's) lands in it.
func Schema(t testing.TB) string {
	t.Helper()
	dsn := DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", EnvVar, err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	name := "t_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+name); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Logf("pgtest: drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA `+name+` CASCADE`); err != nil {
			t.Logf("pgtest: drop schema %s: %v", name, err)
		}
	})
	return WithSearchPath(t, dsn, name)
}

// WithSearchPath returns dsn with its search_path set to schema.
func WithSearchPath(t testing.TB, dsn, schema string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("pgtest: %s is not a URL: %v", EnvVar, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
