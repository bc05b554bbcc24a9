package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/swcmem/swc/consolidate"
)

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"1GiB", 1 << 30}, {"512MiB", 512 << 20}, {"268435456", 268435456}, {"1.5G", 3 << 29}, {"2gb", 2e9}, {" 64 KiB ", 64 << 10}} {
		if got, err := parseBytes(c.in); err != nil || got != c.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "0", "-1GiB", "1PiB", "GiB", "1 lots"} {
		if _, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) accepted it", in)
		}
	}
	if got := formatBytes(1 << 30); got != "1GiB" {
		t.Errorf("formatBytes(1<<30) = %q", got)
	}
}

// TestPlanMemory: the caches and memos together are sized to a quarter of
// the limit.
func TestPlanMemory(t *testing.T) {
	p := planMemory(1 << 30)
	sum := p.contexts + 2*p.states + p.prefixes + p.originals + p.compressors + p.shared + int64(14*p.engineMemoBytes())
	if sum > 1<<28 || sum < 1<<27 {
		t.Errorf("the plan of 1 GiB sizes its caches and memos to %d bytes, want about a quarter of it", sum)
	}
}

// TestServeMemoryLimit: --memory-limit reaches every part swc serve wires:
// the contexts cached, the proxy's memos and rendered memories, the
// engines' memos.
func TestServeMemoryLimit(t *testing.T) {
	env := &Env{Stdout: io.Discard, Stderr: io.Discard, Vars: map[string]string{"GOGC": "100"}}
	fs := newFlags(env, "serve", "")
	sf, ef := addServeFlags(fs)
	if err := fs.Parse([]string{"--db", filepath.Join(t.TempDir(), "swc.db"), "--memory-limit", "64MiB", "--schedule", "idle:24h"}); err != nil {
		t.Fatal(err)
	}
	sched, _ := consolidate.ParseSchedule(ef.schedule)
	svc, err := openService(context.Background(), env, sf, ef, sched, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer svc.close()
	p := planMemory(64 << 20)
	if svc.mem.CacheBytes != p.contexts || svc.srv.Proxy.MemoBytes != int(p.compressors) || svc.srv.Proxy.PrefixBytes != p.prefixes || svc.srv.Proxy.RecallBytes != p.originals || svc.srv.Proxy.ItemBytes != p.items || ef.memoBytes != p.engineMemoBytes() {
		t.Errorf("contexts %d, proxy memos %d, memories %d, engines %d; want %+v (engines %d)",
			svc.mem.CacheBytes, svc.srv.Proxy.MemoBytes, svc.srv.Proxy.PrefixBytes, ef.memoBytes, p, p.engineMemoBytes())
	}
	if p.contexts != 2<<20 || p.compressors != 4<<20 || p.items != 1<<20 {
		t.Errorf("the plan of 64 MiB: %+v", p)
	}
}
