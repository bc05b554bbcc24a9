package chat

import (
	"bytes"
	"unsafe"

	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/internal/rawjson"
)

// An agent resends its whole history with every request: a Codex CLI
// request is the previous one and a few items more. So the items of a
// Responses input are decoded once and remembered by their bytes
// (itemMemo); a later request whose item has the same bytes gets the same
// rItem without decoding it again. The remembered rItem's values are
// slices of the memo's own copy of the item, never written, like the
// values decodeItem gives from a body.

// minMemoItem is the least size of an item remembered: a shorter one
// decodes about as fast as it is looked up.
const minMemoItem = 256

// itemMemoBytes bounds the items remembered per generation (a Memo holds
// at most two: about a dozen agents' 100,000-token histories), until
// swc serve's --memory-limit sizes the shared memos (memo.SetSharedBudget).
const itemMemoBytes = 8 << 20

var itemMemo = memo.NewShared(itemMemoBytes, func(k string, e itemEntry) int {
	it := &e.it
	return len(k) + len(it.Type) + len(it.ID) + len(it.CallID) + len(it.ApprovalRequestID) + len(it.Name) + len(it.Input) + len(it.Code) + len(it.Result) + len(it.text) + 176
})

// itemEntry is a remembered item and its key, the memo's own copy of the
// item's bytes (a lookup's key aliases the request's).
type itemEntry struct {
	it  rItem
	key string
}

// decodeItemMemo is decodeItem, remembered for an item of minMemoItem
// bytes or more that decodes without error (with rawjson's reads: the
// general parse, json.Unmarshal's, is measured and checked against it).
func decodeItemMemo(raw []byte, it *rItem) error {
	if len(raw) < minMemoItem || !memoItems || !rawjson.Fast {
		return decodeItem(raw, it)
	}
	if e, ok := itemMemo.GetOwn(unsafe.String(&raw[0], len(raw)), func(e itemEntry) string { return e.key }); ok {
		*it = e.it
		return nil
	}
	own := bytes.Clone(raw)
	if err := decodeItem(own, it); err != nil {
		return err
	}
	v := *it
	if k, _ := v.kind(); k == kOutput || v.Output != nil || v.Result != "" {
		v.text, v.media = outputText(&v) // remembered too
		v.read = true
	}
	key := unsafe.String(&own[0], len(own))
	itemMemo.Put(key, itemEntry{it: v, key: key})
	return nil
}

// memoItems turns itemMemo and contentMemo (gemini_memo.go) on; off, for a
// test or benchmark of decoding itself.
var memoItems = true
