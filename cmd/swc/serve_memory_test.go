package main

import "testing"

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
	sum := p.contexts + 2*p.states + p.prefixes + p.compressors + p.shared + int64(14*p.engineMemoBytes())
	if sum > 1<<28 || sum < 1<<27 {
		t.Errorf("the plan of 1 GiB sizes its caches and memos to %d bytes, want about a quarter of it", sum)
	}
}
