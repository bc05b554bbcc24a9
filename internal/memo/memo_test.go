package memo

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

func TestMemoBounded(t *testing.T) {
	const max = 16 << 20
	m := New(max, func(k string, _ int) int { return len(k) })
	big := strings.Repeat("x", 1<<20)
	for i := range 40 {
		m.Put(fmt.Sprint(i)+big, i)
	}
	if held, bytes := m.Len(); bytes > max || held > 2*max/(1<<20) {
		t.Errorf("memo holds %d bytes in the current generation, %d entries in all", bytes, held)
	}
	if v, ok := m.Get("39" + big); !ok || v != 39 {
		t.Errorf("the newest entry is gone")
	}
	if _, ok := m.Get("0" + big); ok {
		t.Errorf("the oldest entry is still held after 40 MiB of newer ones")
	}
}

// TestMemoKeepsWhatIsUsed: an entry read after every put survives any
// number of generations; one never read is forgotten.
func TestMemoKeepsWhatIsUsed(t *testing.T) {
	m := New(4<<10, func(k string, _ int) int { return len(k) })
	pad := strings.Repeat("y", 1000)
	m.Put("keep", -1)
	m.Put("drop", -2)
	for i := range 60 {
		m.Put(fmt.Sprint(i)+pad, i)
		if v, ok := m.Get("keep"); !ok || v != -1 {
			t.Fatalf("an entry read after every put was forgotten after %d puts", i+1)
		}
	}
	if _, ok := m.Get("drop"); ok {
		t.Errorf("an entry never read survived 60 KB of puts into a 4 KB memo")
	}
	m.Put("keep", 7) // overwrite in place
	if v, _ := m.Get("keep"); v != 7 {
		t.Errorf("Put did not replace the value: %d", v)
	}
}

func TestMemoConcurrent(t *testing.T) {
	m := New(1<<10, func(k int, _ int) int { return 8 })
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				k := (g*7 + i) % 300
				if v, ok := m.Get(k); ok && v != k*k {
					t.Errorf("key %d holds %d", k, v)
					return
				}
				m.Put(k, k*k)
			}
		})
	}
	wg.Wait()
}

// TestGetOwn: an entry GetOwn finds in the old generation moves back to
// the current one under the key its value carries, not the lookup's;
// GetOwn finds what Get finds.
func TestGetOwn(t *testing.T) {
	type entry struct{ key string }
	m := New(64, func(k string, _ entry) int { return len(k) })
	stored := strings.Repeat("k", 40)
	m.Put(stored, entry{stored})
	m.Put(strings.Repeat("z", 40), entry{"z"}) // fills the generation: the first goes old
	if _, ok := m.old[stored]; !ok {
		t.Fatal("the entry is not in the old generation")
	}
	lookup := string([]byte(stored)) // equal, other memory
	e, ok := m.GetOwn(lookup, func(e entry) string { return e.key })
	if !ok || e.key != stored {
		t.Fatalf("GetOwn: %v %v", e, ok)
	}
	for k := range m.cur {
		if k == stored && unsafe.StringData(k) != unsafe.StringData(stored) {
			t.Errorf("the entry moved back under the lookup's key, not its own")
		}
	}
	if _, ok := m.GetOwn("absent", func(e entry) string { return e.key }); ok {
		t.Error("found an absent key")
	}
}
