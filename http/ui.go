package http

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/sleep"
	"github.com/swcmem/swc/strategy"
)

// The /ui page: server-rendered, no JavaScript. A key typed into the login
// form is checked and a signed session token for it (session.go; never the
// key) kept in an HttpOnly, SameSite=Strict cookie scoped to /ui, Secure
// over TLS; every state-changing form is a POST whose Origin (or Referer)
// must be this host, so another site cannot drive it (CSRF).

const cookieName = "swc_session"

func (s *Server) uiRoutes(mux *routeMux) {
	mux.Handle("GET /ui", s.observe(http.HandlerFunc(s.uiHome)))
	mux.Handle("POST /ui/login", s.observe(http.HandlerFunc(s.uiLogin)))
	mux.Handle("POST /ui/logout", s.observe(http.HandlerFunc(s.uiLogout)))
	mux.Handle("GET /ui/conversations/{id}", s.observe(http.HandlerFunc(s.uiConversation)))
	mux.Handle("GET /ui/conversations/{id}/requests", s.observe(http.HandlerFunc(s.uiRequests)))
	mux.Handle("GET /ui/conversations/{id}/originals/{ref}", s.observe(http.HandlerFunc(s.uiOriginal)))
}

// render writes page with status and the page headers. The page is
// rendered into a buffer first, so that a failing page becomes a 500
// rather than half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page templ.Component) {
	var buf bytes.Buffer
	if err := page.Render(r.Context(), &buf); err != nil {
		s.writeErr(w, r, fmt.Errorf("ui: render page: %w", err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// sameOrigin reports whether a POST comes from a page of this host.
func sameOrigin(r *http.Request) bool {
	src := r.Header.Get("Origin")
	if src == "" || src == "null" {
		src = r.Header.Get("Referer")
	}
	if src == "" {
		return false
	}
	u, err := url.Parse(src)
	return err == nil && u.Host == r.Host
}

type loginPage struct{ Error string }

func (s *Server) uiHome(w http.ResponseWriter, r *http.Request) {
	k, ok := s.authenticate(r, true)
	if !ok {
		s.render(w, r, http.StatusOK, uiLoginPage(loginPage{}))
		return
	}
	if !s.allow(w, k.ID) {
		return
	}
	list, err := s.store.Conversations(r.Context(), k.TenantID)
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, uiListPage(list))
}

func (s *Server) uiLogin(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		writeError(w, http.StatusForbidden, "forbidden", "cross-site form post refused")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	key := strings.TrimSpace(r.PostFormValue("key"))
	probe := r.Clone(r.Context())
	probe.Header = http.Header{"Authorization": {"Bearer " + key}}
	k, ok := s.authenticate(probe, false)
	if !ok {
		s.render(w, r, http.StatusUnauthorized, uiLoginPage(loginPage{Error: "That key is not valid."}))
		return
	}
	ttl := s.sessionTTL()
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.newSession(k.Hash, s.now().Add(ttl)), Path: "/ui",
		HttpOnly: true, Secure: s.secureRequest(r), SameSite: http.SameSiteStrictMode, MaxAge: int(ttl.Seconds())})
	http.Redirect(w, r, "/ui", http.StatusSeeOther)
}

func (s *Server) uiLogout(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		writeError(w, http.StatusForbidden, "forbidden", "cross-site form post refused")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/ui", HttpOnly: true, Secure: s.secureRequest(r),
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	http.Redirect(w, r, "/ui", http.StatusSeeOther)
}

type sessionRow struct {
	swc.ChunkReport
	Start    string
	Messages int
	Stored   string // the gist consolidation stored for it
}

// gist is the row's gist: the context's, else the stored one.
func (r sessionRow) gist() string {
	if r.Gist != "" {
		return r.Gist
	}
	return r.Stored
}

type conversationPage struct {
	Detail     *ConversationDetail
	Context    contextView
	Rows       []sessionRow
	Strategies []string
}

// contextView is what the page shows of a context.
type contextView struct {
	Strategy                             string
	Budget, Tokens                       int
	Text                                 string
	ConsolidatedThrough, PendingSessions int
}

func (s *Server) uiConversation(w http.ResponseWriter, r *http.Request) {
	k, ok := s.authenticate(r, true)
	if !ok {
		http.Redirect(w, r, "/ui", http.StatusSeeOther)
		return
	}
	if !s.allow(w, k.ID) {
		return
	}
	id := r.PathValue("id")
	if !ConversationID.MatchString(id) {
		writeError(w, http.StatusBadRequest, swc.EINVALID, "bad conversation id")
		return
	}
	req := sleep.Request{Strategy: r.URL.Query().Get("strategy")}
	if b := r.URL.Query().Get("budget"); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n < 1 {
			writeError(w, http.StatusBadRequest, swc.EINVALID, "budget: want a positive whole number")
			return
		}
		req.Budget = n
	}
	d, err := s.detail(r, k.TenantID, id)
	if err != nil {
		if swc.ErrorCode(err) == swc.ENOTFOUND {
			s.render(w, r, http.StatusNotFound, uiNotFoundPage())
			return
		}
		s.writeErr(w, r, err)
		return
	}
	res, err := s.memory.Context(r.Context(), k.TenantID, id, req)
	if err != nil {
		s.writeErr(w, r, err)
		return
	}
	stored := map[int]string{}
	for _, g := range d.Gists {
		stored[g.Session] = g.Text
	}
	var rows []sessionRow
	for _, ch := range res.Chunks {
		row := sessionRow{ChunkReport: ch, Stored: stored[ch.Session]}
		if ch.Session < len(d.SessionList) {
			row.Start = d.SessionList[ch.Session].Date
			row.Messages = d.SessionList[ch.Session].Messages
		}
		rows = append(rows, row)
	}
	s.render(w, r, http.StatusOK, uiConversationPage(conversationPage{
		Detail: d, Rows: rows, Strategies: strategy.Names(strategy.ForService),
		Context: contextView{Strategy: res.Strategy, Budget: res.Budget, Tokens: res.Tokens, Text: res.Text,
			ConsolidatedThrough: res.ConsolidatedThrough, PendingSessions: res.PendingSessions},
	}))
}

// lastMessage is a conversation's latest message time as the list shows
// it: "date unknown" while no message is dated.
func lastMessage(c swc.ConversationInfo) string {
	if c.LastMessage.IsZero() {
		return "date unknown"
	}
	return c.LastMessage.Format("2006-01-02 15:04")
}
