package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	swchttp "github.com/swcmem/swc/http"
)

func init() {
	register("keys", "API keys of the service: create, list, revoke", runKeys)
}

const keysUsage = `create --tenant NAME | list | revoke KEY_ID   [--db swc.db|postgres://…]

create prints a new key for the tenant (made when new) once; only its
SHA-256 is stored. list shows every key's id, tenant id, creation and
revocation. revoke KEY_ID stops a key: new lookups refuse it at once, and a
running swc serve that checked it within its --key-cache-ttl (2s by
default) refuses it when that runs out. DELETE /v1/keys/KEY_ID on a replica
revokes a key of the caller's tenant, refused by that replica at once.`

func runKeys(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "keys", keysUsage)
	dbPath := fs.String("db", "swc.db", "the service's SQLite file or postgres:// URL")
	tenant := fs.String("tenant", "", "tenant name (create)")
	if len(args) == 0 {
		fs.Usage()
		return usagef("keys: want create, list or revoke")
	}
	sub, rest := args[0], args[1:]
	if sub == "-h" || sub == "--help" {
		fs.Usage()
		return parseFlags(fs, []string{"-h"})
	}
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	open := func() (*backend, error) { return openBackend(ctx, backendConfig{db: *dbPath, pgConns: 2}) }
	switch sub {
	case "create":
		if *tenant == "" || fs.NArg() > 0 {
			return usagef("keys create: want --tenant NAME and no arguments")
		}
		db, err := open()
		if err != nil {
			return err
		}
		defer db.Close()
		key, k, err := swchttp.CreateKey(ctx, db.store, *tenant)
		if err != nil {
			return fmt.Errorf("keys create: %w", err)
		}
		fmt.Fprintln(env.Stdout, key)
		fmt.Fprintf(env.Stderr, "key %s for tenant %q: shown once, store it now\n", k.ID, *tenant)
		return nil
	case "list":
		if fs.NArg() > 0 {
			return usagef("keys list: unexpected argument %q", fs.Arg(0))
		}
		db, err := open()
		if err != nil {
			return err
		}
		defer db.Close()
		keys, err := db.store.Keys(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tTENANT\tCREATED\tREVOKED")
		for _, k := range keys {
			rev := "-"
			if !k.Revoked.IsZero() {
				rev = k.Revoked.Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.ID, k.TenantID, k.Created.Format(time.RFC3339), rev)
		}
		return tw.Flush()
	case "revoke":
		if fs.NArg() != 1 {
			return usagef("keys revoke: want one KEY_ID (see swc keys list)")
		}
		db, err := open()
		if err != nil {
			return err
		}
		defer db.Close()
		if err := db.store.RevokeKey(ctx, fs.Arg(0), time.Now()); err != nil {
			return fmt.Errorf("keys revoke: %w", err)
		}
		fmt.Fprintf(env.Stderr, "key %s revoked\n", fs.Arg(0))
		return nil
	}
	return usagef("keys: unknown subcommand %q (want create, list or revoke)", sub)
}
