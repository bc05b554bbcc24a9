package swc

import (
	"context"
	"time"
)

// This file is the vocabulary of the service: tenants and their
// keys, stored conversations and messages, the gists consolidation made for
// them, and Store, the one storage interface that sqlite/ (and postgres/)
// implement. storetest/ holds the conformance suite every Store must pass.

// Tenant owns conversations. Keys authenticate as a tenant.
type Tenant struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
}

// APIKey is a stored key: only its hash, never the key itself.
type APIKey struct {
	ID       string    `json:"id"`     // short public id ("k_…"), for list and revoke
	TenantID string    `json:"tenant"` // the tenant the key authenticates as
	Hash     string    `json:"-"`      // hex SHA-256 of the key
	Created  time.Time `json:"created"`
	Revoked  time.Time `json:"revoked,omitzero"` // zero while the key is valid
}

// StoredMessage is one appended message with where the service put it.
// A zero Time is an undated message: its session reads "date unknown".
type StoredMessage struct {
	Message
	// Seq grows in append order within the conversation: 1, 2, …; a
	// superseded message keeps its seq, so the live ones may skip some.
	Seq      int64     `json:"seq"`
	SessionN int       `json:"session_index"` // 0-based session the message belongs to
	Received time.Time `json:"received"`      // when the service stored it
	// Stamped reports that Time is the server's clock: the message came
	// untimed, or its time was behind a server-stamped one (clamped).
	Stamped bool `json:"stamped,omitempty"`
	// Chain is the chain hash of the conversation up to this message
	// (swc.Chain; an instruction keeps the one before it).
	Chain string `json:"-"`
}

// ConversationInfo summarises one stored conversation.
type ConversationInfo struct {
	ID       string    `json:"id"`
	Messages int       `json:"messages"`
	Sessions int       `json:"sessions"`
	Created  time.Time `json:"created"`
	// LastMessage is the latest time of a dated conversation message
	// (zero while none is dated).
	LastMessage time.Time `json:"last_message"`
	// LastReceived is when the service last stored a message of it.
	LastReceived time.Time `json:"last_received"`
	// Version grows with every append and every consolidation, and is
	// never reused, not even by a conversation re-created under the same
	// id: a context cached at one version is stale at any other.
	Version int64 `json:"version"`
	// Generation names this conversation's life: a conversation deleted
	// and re-created under the same id has another.
	Generation string `json:"generation"`
	// Superseded counts the messages an edited history superseded (kept
	// for audit, never read); Edits counts the edits that did so.
	Superseded int `json:"superseded"`
	Edits      int `json:"edits"`
	// ConsolidatedThrough is the number of sessions the last consolidation
	// covered (0: never consolidated); ConsolidatedAt is when it finished.
	ConsolidatedThrough int       `json:"consolidated_through"`
	ConsolidatedAt      time.Time `json:"consolidated_at,omitzero"`
	// ConsolidatedMessages is the message count the last consolidation saw.
	ConsolidatedMessages int `json:"consolidated_messages"`
	// ConsolidationRequested is when a consolidation was last asked for
	// explicitly; one later than ConsolidatedAt is still owed.
	ConsolidationRequested time.Time `json:"consolidation_requested,omitzero"`
}

// StoredGist is a gist a consolidation made for one session (Session, the
// 0-based index) of a stored conversation. (Session, ContentHash, Variant, Gister) is unique: storing
// the same gist twice keeps one.
type StoredGist struct {
	Session     int         `json:"session"`
	ContentHash string      `json:"content_hash"`
	Variant     GistVariant `json:"variant"`
	Gister      string      `json:"gister"`
	Text        string      `json:"text"`
	Created     time.Time   `json:"created"`
}

// Consolidation is what one consolidation run records.
type Consolidation struct {
	Through  int          // sessions covered
	Messages int          // message count seen
	Gists    []StoredGist // gists made (or reused) for mid-tier sessions
	At       time.Time
	// Plan, when set, is what the run decided for each session, encoded
	// by the service (sleep.Service reads it back with the conversation's
	// Plan so that a context read resumes from it instead of planning
	// every session again); nil leaves the one stored before.
	Plan []byte
	// Generation and Edits are the conversation's when the run read it:
	// when set, the save stores nothing into a conversation deleted and
	// re-created since (ENOTFOUND) or edited since (ECONFLICT).
	Generation string
	Edits      int
}

// SessionRule groups messages into sessions: a message with an
// explicit session id different from the previous message's starts a new
// session; otherwise a new session starts after a silence longer than Gap,
// or after Turns messages in one session.
type SessionRule struct {
	Gap   time.Duration // default 30m
	Turns int           // default 20; applies only to messages without explicit session ids
}

// DefaultSessionRule returns a 30-minute gap and 20 messages per session.
func DefaultSessionRule() SessionRule { return SessionRule{Gap: 30 * time.Minute, Turns: 20} }

// NewSession reports whether m starts a new session after prev, the
// previous message, when prev's session already holds n messages. When
// either has no time (undated), only the turn rule applies.
func (r SessionRule) NewSession(prev StoredMessage, n int, m Message) bool {
	if m.Session != "" || prev.Session != "" {
		return m.Session != prev.Session
	}
	gap, turns := r.Gap, r.Turns
	if gap <= 0 {
		gap = 30 * time.Minute
	}
	if turns <= 0 {
		turns = 20
	}
	if m.Time.IsZero() || prev.Time.IsZero() {
		return n >= turns
	}
	return m.Time.Sub(prev.Time) > gap || n >= turns
}

// AppendResult counts what an append did.
type AppendResult struct {
	Appended int `json:"appended"`
	// Skipped counts messages already stored: by id (the append API), or
	// the history the request shares with the stored one (the proxy).
	Skipped int `json:"skipped"`
	// Superseded counts the stored messages an edited history replaced.
	Superseded int `json:"superseded,omitempty"`
	Sessions   int `json:"sessions"` // sessions of the conversation after the append
	// Conversation is the conversation after the append (not sent: the
	// proxy reads what it needs of it without another query).
	Conversation ConversationInfo `json:"-"`
}

// Store keeps tenants, keys, conversations, messages and gists. Every
// conversation method is scoped by tenant: a conversation of another tenant
// is ENOTFOUND. Implementations are safe for concurrent use; every write is
// atomic (nothing is stored half-way).
type Store interface {
	// CreateTenant stores a new tenant named name; EINVALID when the name
	// is taken or empty.
	CreateTenant(ctx context.Context, name string) (Tenant, error)
	// TenantByName returns the tenant, or ENOTFOUND.
	TenantByName(ctx context.Context, name string) (Tenant, error)
	// CreateKey stores a key hash for tenant; ENOTFOUND for an unknown tenant.
	CreateKey(ctx context.Context, tenantID, id, hash string) (APIKey, error)
	// KeyByHash returns the valid (unrevoked) key with this hash, or ENOTFOUND.
	KeyByHash(ctx context.Context, hash string) (APIKey, error)
	// Keys lists every key, revoked ones included, oldest first.
	Keys(ctx context.Context) ([]APIKey, error)
	// RevokeKey revokes the key with this id; ENOTFOUND when there is none.
	RevokeKey(ctx context.Context, id string, at time.Time) error

	// AppendMessages appends msgs to the conversation, creating it when
	// new, under the rules of PlanAppend (ids, time, tool calls, sessions,
	// edited histories), which every Store applies with the conversation
	// locked. A batch breaking a rule is EINVALID and nothing of it is
	// stored. Nothing stored creates no conversation.
	AppendMessages(ctx context.Context, tenant, conv string, msgs []Message, o AppendOptions) (AppendResult, error)
	// Conversation returns the summary, or ENOTFOUND.
	Conversation(ctx context.Context, tenant, conv string) (ConversationInfo, error)
	// Conversations lists the tenant's conversations by id.
	Conversations(ctx context.Context, tenant string) ([]ConversationInfo, error)
	// Messages returns the conversation's live messages in order (never a
	// superseded one), or ENOTFOUND.
	Messages(ctx context.Context, tenant, conv string) ([]StoredMessage, error)
	// MessagesIn returns the conversation's live messages r selects, in
	// order, or ENOTFOUND. It reads only those (an index range of seq):
	// the read path of a long conversation asks for the sessions it needs.
	MessagesIn(ctx context.Context, tenant, conv string, r MessageRange) ([]StoredMessage, error)
	// Plan returns the plan the last consolidation stored
	// (Consolidation.Plan; nil when it stored none), or ENOTFOUND.
	Plan(ctx context.Context, tenant, conv string) ([]byte, error)
	// DeleteConversation removes the conversation, its messages and gists;
	// ENOTFOUND when there is none.
	DeleteConversation(ctx context.Context, tenant, conv string) error
	// SaveConsolidation stores the gists of a consolidation (ignoring ones
	// already stored) and its state, in one transaction; ENOTFOUND when the
	// conversation is gone (or, with c.Generation set, was re-created),
	// ECONFLICT when c.Edits is no longer the conversation's.
	SaveConsolidation(ctx context.Context, tenant, conv string, c Consolidation) error
	// Gists returns the conversation's stored gists by session.
	Gists(ctx context.Context, tenant, conv string) ([]StoredGist, error)
	// RequestConsolidation records an explicit request to consolidate now
	// (whatever the schedule); ENOTFOUND when there is no conversation.
	RequestConsolidation(ctx context.Context, tenant, conv string, at time.Time) error
	// Unconsolidated lists every conversation, of any tenant, holding
	// messages newer than its last consolidation or a request not yet
	// served (a restarted service makes sure each has a job).
	Unconsolidated(ctx context.Context) ([]ConversationRef, error)

	// RecordCompression stores r (its Seq assigned by the store) as the
	// conversation's latest compressed request and deletes its records
	// older than the latest CompressionsKept; ENOTFOUND when there is no
	// conversation. DeleteConversation deletes them all.
	RecordCompression(ctx context.Context, tenant, conv string, r CompressionRecord) error
	// Compressions returns the conversation's records, newest first, or
	// ENOTFOUND.
	Compressions(ctx context.Context, tenant, conv string) ([]CompressionRecord, error)
}

// MessageRange selects stored messages by seq: From ≤ seq < To (To 0: no
// upper bound). Limit > 0 keeps only the first Limit of them, or with Last
// the last Limit (still returned in seq order). Instructions keeps only
// system and developer messages.
type MessageRange struct {
	From, To     int64
	Limit        int
	Last         bool
	Instructions bool
}

// ConversationRef names a conversation of a tenant.
type ConversationRef struct {
	Tenant string `json:"tenant"`
	ID     string `json:"id"`
}

// Job is a consolidation job of a conversation, waiting, retrying or
// running.
type Job struct {
	ID          int64     `json:"id"`
	State       string    `json:"state"`
	Attempt     int       `json:"attempt"`
	ScheduledAt time.Time `json:"scheduled_at"`
	LastError   string    `json:"last_error,omitempty"`
}

// Queue runs consolidation jobs: durable, unique per conversation.
type Queue interface {
	// Enqueue asks for a consolidation at or after at; a job already
	// waiting or running for the conversation absorbs the request.
	Enqueue(ctx context.Context, tenant, conv string, at time.Time) error
	// ConsolidateNow makes the conversation's job run now (record the
	// request in the Store first, so the job does not wait for the
	// schedule); it returns the job id.
	ConsolidateNow(ctx context.Context, tenant, conv string) (int64, error)
	// Pending lists the conversation's waiting, retrying or running jobs.
	Pending(ctx context.Context, tenant, conv string) ([]Job, error)
}

// CheckGeneration is SaveConsolidation's guard, for stores to apply to
// the conversation conv they hold (generation gen, edits edits): nil when
// c.Generation is empty or both match; ENOTFOUND when the conversation c
// was read from is gone (re-created since); ECONFLICT when it was edited
// since.
func CheckGeneration(conv, gen string, edits int, c Consolidation) error {
	switch {
	case c.Generation == "":
		return nil
	case c.Generation != gen:
		return Errorf(ENOTFOUND, "conversation %q was deleted since the consolidation read it", conv)
	case c.Edits != edits:
		return Errorf(ECONFLICT, "conversation %q was edited since the consolidation read it", conv)
	}
	return nil
}

// Watcher is told of the changes of stored conversations made by any
// process sharing the store (the replicas of one Postgres), so that what
// it caches of a conversation can be served without asking the store
// whether it changed. sleep.Service implements it; postgres.DB.Watch
// feeds one from the database's notifications.
type Watcher interface {
	// Changed says the conversation changed and now has this version (0:
	// it was deleted).
	Changed(tenant, conv string, version int64)
	// Watching says whether every change from now on will be told
	// (true, after a reconnect: what was cached before may have missed
	// some, and is forgotten) or changes may go untold (false: the
	// notifications stopped).
	Watching(on bool)
}
