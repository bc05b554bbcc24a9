package http

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/consolidate"
	"github.com/swcmem/swc/sleep"
)

// convID returns the {id} path value, or writes 400 and returns ok=false.
func convID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if !ConversationID.MatchString(id) {
		writeError(w, http.StatusBadRequest, swc.EINVALID,
			"conversation id must be 1–128 characters of letters, digits, '.', '_', ':' and '-'")
		return "", false
	}
	return id, true
}

func (s *Server) appendMessages(w http.ResponseWriter, r *http.Request, tenant string) {
	id, ok := convID(w, r)
	if !ok {
		return
	}
	body, ok := s.readBody(w, r)
	if !ok || !s.allowBody(w, r, len(body), func(status int, code, msg string) { writeError(w, status, code, msg) }) {
		return
	}
	b, err := s.decodeAppend(body, s.now())
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	res, err := s.store.AppendMessages(r.Context(), tenant, id, b.msgs, swc.AppendOptions{Stamp: b.stamp, Rule: s.Rule, Now: s.now, Where: b.where})
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	s.enqueueAfter(r.Context(), tenant, id, res)
	writeJSON(w, http.StatusCreated, res)
}

// enqueueAfter enqueues the conversation's consolidation after an
// append that asks for one (needsJob).
func (s *Server) enqueueAfter(ctx context.Context, tenant, id string, res swc.AppendResult) {
	if !s.needsJob(res) {
		return
	}
	at := s.now()
	if s.Schedule.Kind == consolidate.Idle {
		at = at.Add(s.Schedule.Window)
	}
	// The messages are stored: a failed enqueue is logged, and the
	// sweep enqueues the job.
	if err := s.queue.Enqueue(ctx, tenant, id, at); err != nil {
		s.logger().Error("enqueue consolidation", "err", err)
	}
}

// needsJob reports whether an append asks for a consolidation job. Under
// the idle schedule a job enqueued for a conversation owed a
// consolidation stays until nothing is owed (it snoozes while messages
// come, and looks again after it ran), so only the append that makes the
// conversation owed one enqueues (a database write the others save; a
// failed enqueue is the sweep's). Under the other schedules a job that
// found nothing due has ended, so every append enqueues.
func (s *Server) needsJob(res swc.AppendResult) bool {
	if res.Appended == 0 {
		return false
	}
	if s.Schedule.Kind != consolidate.Idle || res.Superseded > 0 {
		return true
	}
	c := res.Conversation
	return c.Messages-res.Appended <= c.ConsolidatedMessages
}

func (s *Server) context(w http.ResponseWriter, r *http.Request, tenant string) {
	id, ok := convID(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	req := sleep.Request{Strategy: q.Get("strategy"), Format: q.Get("format")}
	if b := q.Get("budget"); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil {
			writeError(w, http.StatusBadRequest, swc.EINVALID, "budget: "+strconv.Quote(b)+" is not a whole number")
			return
		}
		req.Budget = n
		if n == 0 {
			writeError(w, http.StatusBadRequest, swc.EINVALID, "budget must be between 1 and 1000000 (got 0)")
			return
		}
	}
	res, err := s.memory.Context(r.Context(), tenant, id, req)
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(res.JSON())
}

func (s *Server) listConversations(w http.ResponseWriter, r *http.Request, tenant string) {
	list, err := s.store.Conversations(r.Context(), tenant)
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"conversations": list})
}

// SessionInfo is one session of a conversation as GET shows it; Index is
// 0-based, as in the context's chunks (the /ui page numbers from 1).
type SessionInfo struct {
	Index    int       `json:"index"`
	Start    time.Time `json:"start"`
	Date     string    `json:"date"`
	Messages int       `json:"messages"`
}

// ConversationDetail is the body of GET /v1/conversations/{id}.
type ConversationDetail struct {
	swc.ConversationInfo
	SessionList []SessionInfo       `json:"session_list"`
	MessageList []swc.StoredMessage `json:"message_list"`
	Gists       []swc.StoredGist    `json:"gists"`
	PendingJobs []swc.Job           `json:"pending_jobs"`
}

func (s *Server) detail(r *http.Request, tenant, id string) (*ConversationDetail, error) {
	info, err := s.store.Conversation(r.Context(), tenant, id)
	if err != nil {
		return nil, err
	}
	msgs, err := s.store.Messages(r.Context(), tenant, id)
	if err != nil {
		return nil, err
	}
	gists, err := s.store.Gists(r.Context(), tenant, id)
	if err != nil {
		return nil, err
	}
	jobs, err := s.queue.Pending(r.Context(), tenant, id)
	if err != nil {
		return nil, err
	}
	d := &ConversationDetail{ConversationInfo: info, MessageList: msgs, Gists: gists, PendingJobs: jobs, SessionList: []SessionInfo{}}
	if d.Gists == nil {
		d.Gists = []swc.StoredGist{}
	}
	c, _ := sleep.Conversation(id, msgs)
	for _, ses := range c.Sessions {
		d.SessionList = append(d.SessionList, SessionInfo{Index: ses.Index, Start: ses.Start, Date: ses.DateText, Messages: len(ses.Turns)})
	}
	return d, nil
}

func (s *Server) getConversation(w http.ResponseWriter, r *http.Request, tenant string) {
	id, ok := convID(w, r)
	if !ok {
		return
	}
	d, err := s.detail(r, tenant, id)
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, d)
}

func (s *Server) deleteConversation(w http.ResponseWriter, r *http.Request, tenant string) {
	id, ok := convID(w, r)
	if !ok {
		return
	}
	if err := s.store.DeleteConversation(r.Context(), tenant, id); err != nil {
		s.writeErr(w, r, err)
		return
	}
	s.memory.Forget(tenant, id)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) consolidate(w http.ResponseWriter, r *http.Request, tenant string) {
	id, ok := convID(w, r)
	if !ok {
		return
	}
	if err := s.store.RequestConsolidation(r.Context(), tenant, id, s.now()); err != nil {
		s.writeErr(w, r, err)
		return
	}
	job, err := s.queue.ConsolidateNow(r.Context(), tenant, id)
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"job": job, "status": "enqueued"})
}
