package postgres

import (
	"context"
	"errors"

	"github.com/swcmem/swc"
)

// The fast path of an append: the conversation's append state at a
// version, remembered from this DB's last write of it or from another
// replica's notification (watch.go), is planned over with swc.PlanAppend
// and written by one statement that stores nothing unless the
// conversation is still at that version (with the fast appends of other
// conversations waiting at the same time: group.go). The answers the plan cannot have
// without a query are assumed, then checked by the database: no id of the
// batch is stored yet (the statement looks, and the unique index on live
// message ids refuses one that is), and no edited history needs its live
// messages read.

// convKey names a conversation of a tenant.
type convKey struct{ tenant, conv string }

// stateEntry is a conversation's append state at a version (0: none).
type stateEntry struct {
	version int64
	st      swc.AppendState
}

// stateSize is about the bytes an entry holds.
func stateSize(k convKey, e stateEntry) int {
	n := len(k.tenant) + len(k.conv) + len(e.st.LastSession) + len(e.st.Head) + 160
	for _, c := range e.st.OpenCalls {
		n += len(c) + 16
	}
	return n
}

// putState remembers st as the conversation's state at version, unless a
// later version is remembered already.
func (db *DB) putState(tenant, conv string, version int64, st swc.AppendState) {
	if db.states == nil {
		return
	}
	k := convKey{tenant, conv}
	if e, ok := db.states.Get(k); ok && e.version > version {
		return
	}
	db.states.Put(k, stateEntry{version: version, st: st})
}

// dropState forgets the conversation's state.
func (db *DB) dropState(tenant, conv string) {
	if db.states == nil {
		return
	}
	k := convKey{tenant, conv}
	if _, ok := db.states.Get(k); ok {
		db.states.Put(k, stateEntry{})
	}
}

// errAsk stops a fast plan that needs what only the locked path reads.
var errAsk = errors.New("the fast path cannot answer")

// assume is the fast path's swc.AppendLookup: no id is stored yet (the
// insert checks it); the live messages are not known.
type assume struct{}

func (assume) StoredIDs([]string) (map[string]bool, error) { return nil, nil }
func (assume) Live() ([]swc.StoredMessage, error)          { return nil, errAsk }

// maxGroupMessages is the most messages an append may have to join a
// group: a bulk append gains nothing from sharing a statement and a
// commit, and a group statement of a thousand messages was seen running
// for over a minute where the locked path takes well under a second
// (TestContextLongConversation's batches under the full suite's load).
const maxGroupMessages = 64

// appendFast tries the fast path: ok=false (and no error) when the locked
// path must do the append; an error when the database failed. The write
// joins the group of fast appends this DB sends together (group.go).
func (db *DB) appendFast(ctx context.Context, tenant, conv string, msgs []swc.Message, o swc.AppendOptions) (swc.AppendResult, bool, error) {
	if db.states == nil || len(msgs) > maxGroupMessages {
		return swc.AppendResult{}, false, nil
	}
	// A write planned over a state this DB replaced before the write's
	// group went plans again over the new one.
	for range 3 {
		e, ok := db.states.Get(convKey{tenant, conv})
		if !ok || e.version == 0 || e.st.Messages == 0 {
			return swc.AppendResult{}, false, nil
		}
		now := o.Clock()()
		plan, err := swc.PlanAppend(e.st, msgs, o, now, assume{})
		// A rule refusing the batch may be the remembered state's fault: the
		// locked path answers from the stored one.
		if err != nil || len(plan.Messages) == 0 || plan.Supersede != 0 {
			return swc.AppendResult{}, false, nil
		}
		w := &groupWrite{key: convKey{tenant, conv}, version: e.version, plan: plan, now: now}
		if err := db.group.write(ctx, db, w); err != nil {
			return swc.AppendResult{}, false, err
		}
		if w.stale {
			continue
		}
		if !w.ok {
			return swc.AppendResult{}, false, nil
		}
		plan.Result.Conversation = w.info
		return plan.Result, true, nil
	}
	return swc.AppendResult{}, false, nil
}
