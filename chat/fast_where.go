package chat

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// The names "messages[i]" a parse gives its messages' Where, made once
// and shared by every parse (strings never change), so that a parse
// neither formats nor allocates one.

// maxWhereNames bounds the names kept; a message past them gets a name
// of its own.
const maxWhereNames = 1 << 14

var (
	whereNames atomic.Pointer[[]string] // "messages[0]", "messages[1]", …
	whereMu    sync.Mutex               // held to add names
)

// messageWhere returns "messages[i]".
func messageWhere(i int) string {
	if t := whereNames.Load(); t != nil && i < len(*t) {
		return (*t)[i]
	}
	if i >= maxWhereNames {
		return "messages[" + strconv.Itoa(i) + "]"
	}
	return moreWhereNames(i)
}

// moreWhereNames adds names up to "messages[i]" at least (doubling their
// number, all the new ones in one string) and returns that one.
func moreWhereNames(i int) string {
	whereMu.Lock()
	defer whereMu.Unlock()
	var names []string
	if t := whereNames.Load(); t != nil {
		if i < len(*t) {
			return (*t)[i]
		}
		names = *t
	}
	n := min(max(2*len(names), i+1, 1024), maxWhereNames)
	grown := make([]string, n)
	copy(grown, names)
	var b []byte
	for k := len(names); k < n; k++ {
		b = strconv.AppendInt(append(b, "messages["...), int64(k), 10)
		b = append(b, ']')
	}
	all := string(b)
	for k := len(names); k < n; k++ {
		l := len("messages[]") + digits(k)
		grown[k], all = all[:l], all[l:]
	}
	whereNames.Store(&grown)
	return grown[i]
}

// digits returns the number of decimal digits of i ≥ 0.
func digits(i int) int {
	n := 1
	for ; i >= 10; i /= 10 {
		n++
	}
	return n
}
