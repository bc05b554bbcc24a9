package memo

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// TestSlots: a Slots gives fn's value for keys seen again, for keys that
// share a slot (more keys than slots), for keys over SlotKeyMax, and from
// goroutines at once; what it keeps does not hold on to the caller's
// string.
func TestSlots(t *testing.T) {
	s := NewSlots[int](100)
	if len(s.slots) != 128 {
		t.Fatalf("%d slots, want 128", len(s.slots))
	}
	keys := []string{"", "a", strings.Repeat("x", SlotKeyMax), strings.Repeat("y", SlotKeyMax+1)}
	for i := range 1000 {
		keys = append(keys, "key"+strconv.Itoa(i))
	}
	fn := func(k string) int { return len(k)*31 + strings.Count(k, "7") }
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				for i := range keys {
					k := keys[(i*(g+1)+round)%len(keys)]
					if got, want := s.Get(k, fn), fn(k); got != want {
						t.Errorf("Get(%q) = %d, want %d", k, got, want)
						return
					}
					if got, want := s.GetBytes([]byte(k), fn), fn(k); got != want {
						t.Errorf("GetBytes(%q) = %d, want %d", k, got, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	called := false
	s.Get("hit", fn)
	s.GetBytes([]byte("hit"), func(k string) int { called = true; return fn(k) })
	if called {
		t.Error("GetBytes computed a value Get had remembered")
	}
	big := "prefix " + "piece"
	s.Get(big[7:], fn)
	for i := range s.slots {
		if e := s.slots[i].Load(); e != nil && e.key == "piece" && unsafe.StringData(e.key) == unsafe.StringData(big[7:]) {
			t.Fatal("the kept key shares the caller's bytes")
		}
	}
}
