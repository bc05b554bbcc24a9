package http

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"

	"github.com/a-h/templ"

	"github.com/swcmem/swc"
)

// The /ui pages of what the compressing proxy did to a stored
// conversation's requests (compression_log.go records them): per request,
// each message kept verbatim, masked, gisted or dropped, with its handle
// and a link to its original, resolved for the logged-in tenant only.

var (
	// handleRef is an observation's handle (observe.Handle).
	handleRef = regexp.MustCompile(`^h[0-9a-f]{10}$`)
	// chainRef is a message's chain hash (swc.Chain).
	chainRef = regexp.MustCompile(`^[0-9a-f]{32}$`)
)

// requestsPage is the conversation's compressed requests.
type requestsPage struct {
	Conv     string
	Requests []requestView
}

// requestView is one record as the page shows it.
type requestView struct {
	swc.CompressionRecord
	Counts string // "3 kept, 2 masked, …"
	Rows   []itemView
	Open   bool // the newest: shown unfolded
}

// itemView is one item with its handle and the link to its original.
type itemView struct {
	swc.CompressedItem
	Handle string        // the observation's handle, else the stored message's (m12@conv), else ""
	Href   templ.SafeURL // "" when the original is not to be had
}

func (s *Server) uiAuthed(w http.ResponseWriter, r *http.Request) (tenant, conv string, ok bool) {
	k, ok := s.authenticate(r, true)
	if !ok {
		http.Redirect(w, r, "/ui", http.StatusSeeOther)
		return "", "", false
	}
	if !s.allow(w, k.ID) {
		return "", "", false
	}
	conv = r.PathValue("id")
	if !ConversationID.MatchString(conv) {
		writeError(w, http.StatusBadRequest, swc.EINVALID, "bad conversation id")
		return "", "", false
	}
	return k.TenantID, conv, true
}

// uiStoreErr answers err of a store read: the not-found page, or the
// error.
func (s *Server) uiStoreErr(w http.ResponseWriter, r *http.Request, err error) {
	if swc.ErrorCode(err) == swc.ENOTFOUND {
		s.render(w, r, http.StatusNotFound, uiNotFoundPage())
		return
	}
	s.writeErr(w, r, err)
}

func (s *Server) uiRequests(w http.ResponseWriter, r *http.Request) {
	tenant, conv, ok := s.uiAuthed(w, r)
	if !ok {
		return
	}
	recs, err := s.store.Compressions(r.Context(), tenant, conv)
	if err != nil {
		s.uiStoreErr(w, r, err)
		return
	}
	seqOf := map[string]int64{} // chain → seq of the live stored message
	if len(recs) > 0 {
		msgs, err := s.store.Messages(r.Context(), tenant, conv)
		if err != nil {
			s.uiStoreErr(w, r, err)
			return
		}
		for _, m := range msgs {
			seqOf[m.Chain] = m.Seq
		}
	}
	p := requestsPage{Conv: conv}
	for k, rec := range recs {
		v := requestView{CompressionRecord: rec, Open: k == 0, Counts: itemCounts(rec.Items)}
		for _, it := range rec.Items {
			row := itemView{CompressedItem: it, Handle: it.Handle}
			seq, live := seqOf[it.Chain]
			switch {
			case it.Handle != "":
				row.Href = originalHref(conv, it.Handle)
			case it.Chain != "" && live:
				row.Handle = "m" + strconv.FormatInt(seq, 10) + "@" + conv
				row.Href = originalHref(conv, it.Chain)
			}
			v.Rows = append(v.Rows, row)
		}
		p.Requests = append(p.Requests, v)
	}
	s.render(w, r, http.StatusOK, uiRequestsPage(p))
}

// itemCounts says how many items of each kind there are.
func itemCounts(items []swc.CompressedItem) string {
	n := map[swc.ItemKind]int{}
	for _, it := range items {
		n[it.Kind]++
	}
	out := ""
	for _, k := range []swc.ItemKind{swc.ItemKept, swc.ItemMasked, swc.ItemClipped, swc.ItemGisted, swc.ItemPartial, swc.ItemDropped} {
		if n[k] == 0 {
			continue
		}
		if out != "" {
			out += ", "
		}
		out += strconv.Itoa(n[k]) + " " + string(k)
	}
	return out
}

// originalHref is the page of the original named ref (a handle or a
// chain hash) in conversation conv.
func originalHref(conv, ref string) templ.SafeURL {
	return templ.SafeURL("/ui/conversations/" + url.PathEscape(conv) + "/originals/" + url.PathEscape(ref))
}

// originalPage is one original, and where it was found.
type originalPage struct {
	Conv, Ref string
	Found     bool
	Handle    string // the observation's handle, when it is one
	Stored    string // the stored message's handle (m12@conv), "" when it came from the cache
	Role      string
	Name      string
	Calls     string // its tool calls, written out
	CallID    string
	Text      string
}

// uiOriginal shows the original named by ref in the conversation: a
// stored message of it whose handle (an observation's) or chain hash is
// ref, else, for a handle, the tenant's cache of originals. Nothing of
// another tenant is ever looked at: the store reads are the tenant's, the
// cache is keyed by tenant.
func (s *Server) uiOriginal(w http.ResponseWriter, r *http.Request) {
	tenant, conv, ok := s.uiAuthed(w, r)
	if !ok {
		return
	}
	ref := r.PathValue("ref")
	isHandle := handleRef.MatchString(ref)
	if !isHandle && !chainRef.MatchString(ref) {
		writeError(w, http.StatusBadRequest, swc.EINVALID, "bad original: want a handle (h and 10 lowercase hex digits) or a chain hash (32)")
		return
	}
	stored, err := s.store.Messages(r.Context(), tenant, conv)
	if err != nil {
		s.uiStoreErr(w, r, err)
		return
	}
	p := originalPage{Conv: conv, Ref: ref}
	msgs := make([]swc.Message, len(stored))
	for i := range stored {
		msgs[i] = stored[i].Message
	}
	for i := len(stored) - 1; i >= 0 && !p.Found; i-- {
		m := stored[i]
		if isHandle {
			if h, ok := observationHandle(msgs, i); !ok || h != ref {
				continue
			}
			p.Handle = ref
		} else if m.Chain != ref {
			continue
		}
		if h, ok := observationHandle(msgs, i); ok {
			p.Handle = h
		}
		p.Found, p.Stored = true, "m"+strconv.FormatInt(m.Seq, 10)+"@"+conv
		p.Role, p.Name, p.CallID, p.Text = string(m.Role), m.Name, m.ToolCallID, m.Content
		for k, tc := range m.ToolCalls {
			if k > 0 {
				p.Calls += "\n"
			}
			p.Calls += tc.Name + "(" + tc.Arguments + ")"
		}
	}
	if !p.Found && isHandle && s.proxy.originals != nil {
		if o, ok := s.proxy.originals.Get(recallKey{tenant, ref}); ok && s.now().Sub(o.at) <= s.recallTTL() {
			p.Found, p.Handle, p.Text = true, ref, o.text
		}
	}
	status := http.StatusOK
	if !p.Found {
		status = http.StatusNotFound
	}
	s.render(w, r, status, uiOriginalPage(p))
}
