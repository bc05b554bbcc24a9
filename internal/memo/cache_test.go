package memo

import (
	"fmt"
	"testing"
)

func TestCacheBytesAndShare(t *testing.T) {
	c := NewCache[string, int](1000, 0.25) // a tenant holds at most 250 bytes
	if got := c.TenantMax(); got != 250 {
		t.Fatalf("TenantMax = %d, want 250", got)
	}
	// Tenant b's one entry, then tenant a floods: a pushes out only its own.
	c.Put("b", "b0", 0, 100)
	for i := range 100 {
		c.Put("a", fmt.Sprint("a", i), i, 60)
	}
	if _, ok := c.Get("b0"); !ok {
		t.Error("tenant a's flood pushed out tenant b's entry")
	}
	entries, bytes, largest := c.Stats()
	if largest > 250 || bytes != 100+largest {
		t.Errorf("Stats = %d entries, %d bytes, largest tenant %d; want tenant a at most 250 and b's 100", entries, bytes, largest)
	}
	// The most recent of a's are kept.
	if _, ok := c.Get("a99"); !ok {
		t.Error("a's most recent entry was forgotten")
	}
	if _, ok := c.Get("a0"); ok {
		t.Error("a's oldest entry was kept past its share")
	}
	// Too large for a share: not stored.
	if c.Put("a", "big", 0, 251) {
		t.Error("Put stored an entry over the tenant's share")
	}
	// Many tenants: the cache as a whole holds at most its bytes, least
	// recently used first out.
	for i := range 40 {
		c.Put(fmt.Sprint("t", i), fmt.Sprint("t", i), i, 200)
	}
	if _, bytes, _ := c.Stats(); bytes > 1000 {
		t.Errorf("cache holds %d bytes, over its 1000", bytes)
	}
	if _, ok := c.Get("t39"); !ok {
		t.Error("the newest entry was forgotten")
	}
	if _, ok := c.Get("b0"); ok {
		t.Error("the least recently used entry was kept past the cache's bytes")
	}
	// Replacing an entry counts its new size only.
	c.Put("t39", "t39", 1, 10)
	if v, _ := c.Get("t39"); v != 1 {
		t.Errorf("replaced entry = %d, want 1", v)
	}
	c.DeleteFunc(func(k string, _ int) bool { return k == "t39" })
	if _, ok := c.Get("t39"); ok {
		t.Error("DeleteFunc kept the entry")
	}
	// By value: only the entries drop names go.
	c.Put("t38", "v7", 7, 10)
	c.Put("t38", "v8", 8, 10)
	c.DeleteFunc(func(_ string, v int) bool { return v == 7 })
	if _, ok := c.Get("v7"); ok {
		t.Error("DeleteFunc kept the entry of value 7")
	}
	if _, ok := c.Get("v8"); !ok {
		t.Error("DeleteFunc forgot an entry it was not asked to")
	}
	c.SetMax(400)
	if _, bytes, largest := c.Stats(); bytes > 400 || largest > 100 {
		t.Errorf("after SetMax(400): %d bytes, largest tenant %d; want ≤ 400 and ≤ 100", bytes, largest)
	}
}

func TestSharedBudget(t *testing.T) {
	a := NewShared(3000, func(s string, _ int) int { return len(s) })
	b := NewShared(1000, func(s string, _ int) int { return len(s) })
	t.Cleanup(func() { SetSharedBudget(0) })
	fill := func() {
		for i := range 2000 {
			k := fmt.Sprintf("%0100d", i)
			a.Put(k, i)
			b.Put(k, i)
		}
	}
	fill()
	if got := a.Bytes(); got > 2*3000+200 {
		t.Errorf("a holds %d bytes at its default, want about 2·3000 at most", got)
	}
	// Other shared memos of the process (tokens, mention, …) are sized too:
	// every one holds at most its share.
	SetSharedBudget(1 << 20)
	fill()
	if got := a.Bytes() + b.Bytes(); got > 1<<20 {
		t.Errorf("a and b hold %d bytes under a 1 MiB budget", got)
	}
	if got := SharedBytes(); got > 1<<20+1<<12 {
		t.Errorf("SharedBytes = %d under a 1 MiB budget", got)
	}
	SetSharedBudget(0)
	if a.max != 3000 || b.max != 1000 {
		t.Errorf("SetSharedBudget(0) left a at %d and b at %d, want the defaults", a.max, b.max)
	}
}

func TestCacheTouch(t *testing.T) {
	c := NewCache[string, int](300, 1)
	c.Put("t", "a", 1, 100)
	c.Put("t", "b", 2, 100)
	c.Put("t", "c", 3, 100)
	if c.Touch("x", func(*int) bool { return true }) {
		t.Error("Touch of a key not held reported true")
	}
	// Touch updates in place and marks a used: b is now the oldest.
	if !c.Touch("a", func(v *int) bool { *v = 10; return true }) {
		t.Fatal("Touch of a held key reported false")
	}
	if v, _ := c.Get("a"); v != 10 {
		t.Errorf("a = %d after Touch; want 10", v)
	}
	c.Put("t", "d", 4, 100)
	if _, ok := c.Get("b"); ok {
		t.Error("b, the least recently used, was kept")
	}
	if _, ok := c.Get("a"); !ok {
		t.Error("a, touched, was forgotten")
	}
	// f refusing: nothing marked, false reported.
	c.Get("c")
	c.Get("a") // order now: a, c, d (d the oldest)
	if c.Touch("d", func(v *int) bool { return false }) {
		t.Error("Touch reported true when f refused")
	}
	c.Put("t", "e", 5, 100)
	if _, ok := c.Get("d"); ok {
		t.Error("d was marked used though f refused")
	}
	if entries, bytes, _ := c.Stats(); entries != 3 || bytes != 300 {
		t.Errorf("Stats = %d entries, %d bytes; want 3, 300", entries, bytes)
	}
}
