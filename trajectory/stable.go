package trajectory

import "bytes"

// PrefixStable reports whether body cur extends body prev as a provider's
// prompt cache needs: every field but the message list (list) byte for
// byte the same (the instructions, Anthropic's "system" where swc's memory
// goes, the tools, …), and prev's list a prefix of cur's, item by item
// byte for byte (whitespace around an item aside). An agent's next request
// appends its turn and the results to the previous one, so an unchanged
// prefix means the whole previous request is a cache hit.
func PrefixStable(prev, cur []byte, list string) bool {
	p, err1 := decodeObject(prev)
	c, err2 := decodeObject(cur)
	if err1 != nil || err2 != nil {
		return false
	}
	pl, err1 := p.list(list)
	cl, err2 := c.list(list)
	if err1 != nil || err2 != nil {
		return false
	}
	return prefixStable(&sent{top: p, items: pl}, &sent{top: c, items: cl}, list)
}

// prefixStable is PrefixStable of decoded bodies.
func prefixStable(prev, cur *sent, list string) bool {
	if !sameFields(prev, cur, list) || len(prev.prefixUnits()) > len(cur.prefixUnits()) {
		return false
	}
	return commonItems(prev, cur) == len(prev.prefixUnits())
}

// sameFields reports whether every field of the two bodies but the
// message list is byte for byte the same (whitespace around it and
// cache_control marks aside, as sameItem).
func sameFields(prev, cur *sent, list string) bool {
	p, c := prev.top, cur.top
	if p == nil || c == nil || len(p) != len(c) {
		return false
	}
	for k, v := range p {
		if k == list || k == cur.leadKey && k == prev.leadKey {
			continue
		}
		if w, ok := c[k]; !ok || !sameItem(v, w) {
			return false
		}
	}
	return true
}

// commonItems is how many leading prefix units (list items, or content
// blocks, see prefixUnits) the two bodies share, byte for byte
// (whitespace around a unit aside, and Anthropic's cache_control marks: a
// mark is not part of what a provider caches, and a client moves its mark
// to its last message on every request).
func commonItems(prev, cur *sent) int {
	p, c := prev.prefixUnits(), cur.prefixUnits()
	n := 0
	for n < min(len(p), len(c)) && sameItem(p[n].key, c[n].key) {
		n++
	}
	return n
}

// sameItem reports whether two list items are the same but for white
// space around them and cache_control marks.
func sameItem(a, b []byte) bool {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if bytes.Equal(a, b) {
		return true
	}
	if !bytes.Contains(a, []byte(`"cache_control"`)) && !bytes.Contains(b, []byte(`"cache_control"`)) {
		return false
	}
	return bytes.Equal(markRE.ReplaceAll(a, nil), markRE.ReplaceAll(b, nil))
}

// cachedPrefix returns the bytes of cur's prefix units (see
// prefixUnits) that a provider's prompt cache holds from prev (the units
// before the first that differs; none when another field changed) and
// the bytes of all of cur's units.
func cachedPrefix(prev, cur *sent, list string) (cached, total int) {
	units := cur.prefixUnits()
	for _, u := range units {
		total += u.size
	}
	if !sameFields(prev, cur, list) {
		return 0, total
	}
	for _, u := range units[:commonItems(prev, cur)] {
		cached += u.size
	}
	return cached, total
}
