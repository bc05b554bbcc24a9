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

var itemMemo = memo.NewShared(itemMemoBytes, func(k string, it rItem) int {
	return len(k) + len(it.Type) + len(it.ID) + len(it.CallID) + len(it.ApprovalRequestID) + len(it.Name) + len(it.Input) + len(it.Code) + len(it.Result) + len(it.text) + 160
})

// decodeItemMemo is decodeItem, remembered for an item of minMemoItem
// bytes or more that decodes without error (with rawjson's reads: the
// general parse, json.Unmarshal's, is measured and checked against it).
func decodeItemMemo(raw []byte, it *rItem) error {
	if len(raw) < minMemoItem || !memoItems || !rawjson.Fast {
		return decodeItem(raw, it)
	}
	if v, ok := itemMemo.Get(unsafe.String(&raw[0], len(raw))); ok { // the key is not kept
		*it = v
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
	itemMemo.Put(unsafe.String(&own[0], len(own)), v)
	return nil
}

// memoItems turns itemMemo on; off, for a test or benchmark of decoding
// itself.
var memoItems = true
