package http

import (
	"strings"
	"testing"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
	"github.com/swcmem/swc/observe"
)

// TestCompressionRecordKinds: every conversation message gets its kind —
// sent as it came (kept), as a stub (masked: its tokens as the stub's),
// left out with its session verbatim in the memory (kept, in memory),
// gisted, partly kept, or not in any session (dropped) — with an
// observation's handle, the chain the store gives it, and a preview; the
// instructions are not listed and take no part in the chain.
func TestCompressionRecordKinds(t *testing.T) {
	c, err := memory.New(memory.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("output line\n", 200)
	msgs := []swc.Message{
		{Role: swc.RoleSystem, Content: "be brief"},                                                                                                 // 0 instruction
		{Role: swc.RoleUser, Content: "\n  first session, gisted  \nmore"},                                                                          // 1 gisted
		{Role: swc.RoleAssistant, Content: "ok"},                                                                                                    // 2 gisted
		{Role: swc.RoleUser, Content: "second session, kept in the memory"},                                                                         // 3 in memory
		{Role: swc.RoleUser, Content: "third, partly kept"},                                                                                         // 4 partial
		{Role: swc.RoleUser, Content: "not in a session"},                                                                                           // 5 dropped
		{Role: swc.RoleSystem, Content: "mid-conversation", InPlace: true},                                                                          // 6 kept, not chained
		{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"command":"ls"}`}}},                               // 7 kept
		{Role: swc.RoleTool, ToolCallID: "c1", Content: long},                                                                                       // 8 masked
		{Role: swc.RoleUser, Content: strings.Repeat("é", 150)},                                                                                     // 9 kept, preview cut
		{Role: swc.RoleAssistant, Content: "Step one. " + long, ToolCalls: []swc.ToolCall{{ID: "c2", Name: "bash", Arguments: `{"command":"ls"}`}}}, // 10 clipped
		{Role: swc.RoleTool, ToolCallID: "c2", Content: "ok"},                                                                                       // 11 kept
	}
	res := &memory.Result{
		Source:    []int{0, -1, 6, 7, 8, 9, 10, 11},
		Rewritten: map[int]string{8: "[swc:h0 bash(ls) → 200 lines]", 10: "Step one. [swc:" + memory.HistoryHandle(msgs[10:11]) + " …]"},
		Context: &swc.Context{Chunks: []swc.ChunkReport{
			{Session: 0, Action: swc.ActionGist}, {Session: 1, Action: swc.ActionVerbatim}, {Session: 2, Action: swc.ActionPartial}}},
		Sessions: []memory.SessionSpan{{Session: 0, First: 1, Last: 2}, {Session: 1, First: 3, Last: 3}, {Session: 2, First: 4, Last: 4}},
	}
	rec := compressionRecord(c, &chat.Input{Messages: msgs}, res)
	want := []struct {
		index    int
		kind     swc.ItemKind
		inMemory bool
		preview  string
	}{
		{1, swc.ItemGisted, false, "first session, gisted"},
		{2, swc.ItemGisted, false, "ok"},
		{3, swc.ItemKept, true, "second session, kept in the memory"},
		{4, swc.ItemPartial, false, "third, partly kept"},
		{5, swc.ItemDropped, false, "not in a session"},
		{6, swc.ItemKept, false, "mid-conversation"},
		{7, swc.ItemKept, false, `bash({"command":"ls"})`},
		{8, swc.ItemMasked, false, "output line"},
		{9, swc.ItemKept, false, strings.Repeat("é", previewRunes) + "…"},
		{10, swc.ItemClipped, false, "Step one. output line"},
		{11, swc.ItemKept, false, "ok"},
	}
	if len(rec.Items) != len(want) {
		t.Fatalf("%d items: %+v", len(rec.Items), rec.Items)
	}
	chain := ""
	for k, w := range want {
		it := rec.Items[k]
		if it.Index != w.index || it.Kind != w.kind || it.InMemory != w.inMemory || it.Preview != w.preview || it.Role != msgs[w.index].Role {
			t.Errorf("item %d = %+v; want %+v", k, it, w)
		}
		if it.Tokens != c.Cost(msgs[w.index]) {
			t.Errorf("item %d: %d tokens; want %d", k, it.Tokens, c.Cost(msgs[w.index]))
		}
		if w.index == 6 {
			if it.Chain != "" {
				t.Errorf("a mid-conversation system message is chained: %q", it.Chain)
			}
		} else {
			chain = swc.Chain(chain, msgs[w.index])
			if it.Chain != chain {
				t.Errorf("item %d: chain %q; want %q", k, it.Chain, chain)
			}
		}
		switch {
		case w.kind == swc.ItemMasked, w.kind == swc.ItemClipped:
			stub := msgs[w.index]
			stub.Content = res.Rewritten[w.index]
			if it.Sent != c.Cost(stub) || it.Sent >= it.Tokens {
				t.Errorf("%s: sent %d; want the rewritten text's %d", w.kind, it.Sent, c.Cost(stub))
			}
		case w.kind == swc.ItemKept && !w.inMemory:
			if it.Sent != it.Tokens {
				t.Errorf("item %d kept: sent %d of %d", k, it.Sent, it.Tokens)
			}
		case it.Sent != 0:
			t.Errorf("item %d left out: sent %d", k, it.Sent)
		}
	}
	if h := rec.Items[7].Handle; h != observe.Handle("c1", long) {
		t.Errorf("the tool output's handle %q", h)
	}
	if h := rec.Items[9].Handle; h != memory.HistoryHandle(msgs[10:11]) {
		t.Errorf("the clipped turn's handle %q; want its history handle", h)
	}
	// An old turn sent whole but without its thinking blocks shows no
	// handle: none is in its text.
	res.Rewritten[10] = "Step one. " + long
	if it := compressionRecord(c, &chat.Input{Messages: msgs}, res).Items[9]; it.Kind != swc.ItemClipped || it.Handle != "" {
		t.Errorf("a turn rewritten without a handle: %s, handle %q", it.Kind, it.Handle)
	}
	for _, k := range []int{0, 1, 2, 3, 4, 5, 6, 8} {
		if rec.Items[k].Handle != "" {
			t.Errorf("item %d is not an observation but has handle %q", k, rec.Items[k].Handle)
		}
	}
}

// TestCompressionRecordBounded: a request of more messages than
// swc.CompressionItemsMax lists the latest ones and counts the rest.
func TestCompressionRecordBounded(t *testing.T) {
	c, err := memory.New(memory.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	n := swc.CompressionItemsMax + 5
	msgs := make([]swc.Message, n)
	res := &memory.Result{}
	for i := range msgs {
		msgs[i] = swc.Message{Role: swc.RoleUser, Content: "m"}
		res.Source = append(res.Source, i)
	}
	rec := compressionRecord(c, &chat.Input{Messages: msgs}, res)
	if rec.Omitted != 5 || len(rec.Items) != swc.CompressionItemsMax || rec.Items[0].Index != 5 {
		t.Errorf("omitted %d, %d items from %d", rec.Omitted, len(rec.Items), rec.Items[0].Index)
	}
}
