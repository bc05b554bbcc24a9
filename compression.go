package swc

import "time"

// What the compressing proxy did to the requests of a stored conversation:
// per request, each of its messages kept verbatim, masked (a stub in its
// place), gisted or dropped, with the handle it can be recalled by. The
// service keeps the latest CompressionsKept records of each conversation
// (Store.RecordCompression) and /ui shows them.

// ItemKind is what compression did to one message of a request.
type ItemKind string

const (
	// ItemKept: sent as it came, or held verbatim in the memory message
	// (CompressedItem.InMemory).
	ItemKept ItemKind = "kept"
	// ItemMasked: sent in its place as a stub (a tool loop's old
	// observation); the stub's first line shows its handle.
	ItemMasked ItemKind = "masked"
	// ItemClipped: a tool loop's old assistant turn sent with its prose
	// clipped to its first sentences, its calls as they came; its text
	// shows the handle of the whole turn. An old turn sent whole but
	// without its reasoning blocks (Anthropic's thinking, Gemini's
	// unsigned thoughts) is clipped too, with no handle.
	ItemClipped ItemKind = "clipped"
	// ItemGisted: left out; the memory message holds a gist of its session.
	ItemGisted ItemKind = "gisted"
	// ItemPartial: left out; the memory message holds some turns of its
	// session verbatim, not necessarily this one.
	ItemPartial ItemKind = "partial"
	// ItemDropped: left out; a tool loop's memory message lists its call
	// with its handle, a history's memory holds nothing of it.
	ItemDropped ItemKind = "dropped"
)

// CompressionsKept is how many records a conversation keeps: recording one
// more deletes the oldest.
const CompressionsKept = 20

// CompressionItemsMax is how many items a record holds at most: the
// earliest messages of a longer request are left out (Omitted).
const CompressionItemsMax = 2000

// CompressionRecord is what compression did to one request of a stored
// conversation.
type CompressionRecord struct {
	// Seq grows with each record of the store (assigned by
	// RecordCompression); the newest record has the highest.
	Seq      int64     `json:"seq"`
	At       time.Time `json:"at"`
	Protocol string    `json:"protocol"` // openai, anthropic, responses, gemini
	Mode     string    `json:"mode"`     // X-SWC-Mode: stored, prefix
	Budget   int       `json:"budget"`
	// TokensBefore and TokensAfter count the request's messages before and
	// as sent (X-SWC-Tokens-Before, -After).
	TokensBefore int              `json:"tokens_before"`
	TokensAfter  int              `json:"tokens_after"`
	Items        []CompressedItem `json:"items"`
	// Omitted counts the request's earliest messages left out of Items
	// (past CompressionItemsMax).
	Omitted int `json:"omitted,omitempty"`
}

// CompressedItem is one message of a compressed request.
type CompressedItem struct {
	Index int      `json:"index"` // the message's position in the request (0-based)
	Role  Role     `json:"role"`
	Kind  ItemKind `json:"kind"`
	// Handle is the observation's handle (h and 10 hex digits, as its
	// stub shows it and swc_recall and the MCP recall take it); "" for a
	// message that is not an observation.
	Handle string `json:"handle,omitempty"`
	// Chain is the message's chain hash (Chain over the request's
	// conversation messages): it names the stored message; "" for an
	// instruction (system and developer messages are not stored).
	Chain string `json:"chain,omitempty"`
	// Tokens is the message's cost as it came; Sent its cost as sent
	// (the stub's for a masked one, 0 when left out).
	Tokens   int  `json:"tokens"`
	Sent     int  `json:"sent"`
	InMemory bool `json:"in_memory,omitempty"` // kept verbatim inside the memory message
	// Preview is the start of the message's first non-empty line.
	Preview string `json:"preview,omitempty"`
}
