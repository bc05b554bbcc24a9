package http

import (
	"net/http"
	"time"

	"github.com/swcmem/swc"
)

// The tenant's own keys: GET /v1/keys lists them (ids, never hashes),
// DELETE /v1/keys/{id} revokes one. A revocation is effective at once on
// the replica that made it (its cache forgets the key, and remembers the
// revocation against lookups already under way); every other replica
// stops accepting the key within its KeyCacheTTL.

// keyView is what GET /v1/keys shows of a key.
type keyView struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Revoked time.Time `json:"revoked,omitzero"`
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request, tenant string) {
	all, err := s.store.Keys(r.Context())
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	out := []keyView{}
	for _, k := range all {
		if k.TenantID == tenant {
			out = append(out, keyView{ID: k.ID, Created: k.Created, Revoked: k.Revoked})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": out})
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request, tenant string) {
	id := r.PathValue("id")
	all, err := s.store.Keys(r.Context())
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	found := false
	for _, k := range all {
		found = found || (k.ID == id && k.TenantID == tenant && k.Revoked.IsZero())
	}
	if !found { // another tenant's key is not found either
		writeError(w, http.StatusNotFound, swc.ENOTFOUND, "no valid key with this id")
		return
	}
	if err := s.store.RevokeKey(r.Context(), id, s.now()); err != nil {
		s.writeErr(w, r, err)
		return
	}
	s.forgetKey(id)
	w.WriteHeader(http.StatusNoContent)
}

// forgetKey drops key id from the cache and refuses it for KeyCacheTTL
// from now, even when a lookup that began before the revocation caches it
// again; after that the store says it is revoked.
func (s *Server) forgetKey(id string) {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	for h, e := range s.keys {
		if e.key.ID == id {
			delete(s.keys, h)
		}
	}
	if s.revoked == nil {
		s.revoked = map[string]time.Time{}
	}
	now := s.now()
	for k, until := range s.revoked {
		if now.After(until) {
			delete(s.revoked, k)
		}
	}
	s.revoked[id] = now.Add(s.KeyCacheTTL + time.Second)
}

// revokedHere reports whether key id was revoked through this server
// recently (forgetKey).
func (s *Server) revokedHere(id string) bool {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	until, ok := s.revoked[id]
	return ok && s.now().Before(until)
}
