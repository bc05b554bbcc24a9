package wiretest

import (
	"encoding/json"
	"reflect"
)

// DropBlockAdded reports whether an Anthropic request's thinking field
// fwd is the client's, orig, with block_binding.prefix_mismatch_behavior
// "drop_block" added: what swc sets on a compressed request that keeps a
// thinking block (its prefix changed; preserved thinking would refuse
// the block otherwise), where the client set no block_binding.
func DropBlockAdded(fwd, orig []byte) bool {
	var f, o map[string]any
	if json.Unmarshal(fwd, &f) != nil || json.Unmarshal(orig, &o) != nil || o["block_binding"] != nil {
		return false
	}
	bb, _ := f["block_binding"].(map[string]any)
	if len(bb) != 1 || bb["prefix_mismatch_behavior"] != "drop_block" {
		return false
	}
	delete(f, "block_binding")
	return reflect.DeepEqual(f, o)
}
