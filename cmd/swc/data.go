package main

import (
	"fmt"
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/locomo"
)

// loadConversations reads a LoCoMo-format file, or the built-in sample when
// path is empty. Warnings about usable oddities go to stderr.
func loadConversations(env *Env, path string) ([]*swc.Conversation, error) {
	if path == "" {
		return locomo.Sample()
	}
	convs, warns, err := locomo.LoadFile(path)
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		fmt.Fprintf(env.Stderr, "swc: warning: %s\n", w)
	}
	return convs, nil
}

// pickConversations returns the conversations named in ids, a
// comma-separated list of sample ids or 0-based positions ("conv-26,3");
// all of them when ids is empty. An unknown name is an error listing the
// known ones.
func pickConversations(convs []*swc.Conversation, ids string) ([]*swc.Conversation, error) {
	if strings.TrimSpace(ids) == "" {
		return convs, nil
	}
	var out []*swc.Conversation
	seen := map[*swc.Conversation]bool{}
	for _, id := range strings.Split(ids, ",") {
		id = strings.TrimSpace(id)
		c := swc.FindConversation(convs, id)
		if c == nil {
			known := make([]string, len(convs))
			for i, c := range convs {
				known[i] = c.ID
			}
			return nil, swc.Errorf(swc.ENOTFOUND, "no conversation %q (have: %s)", id, strings.Join(known, ", "))
		}
		if !seen[c] { // "conv-26,0" names one conversation twice
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}
