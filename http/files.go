package http

import (
	"net/http"
	"strings"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/httpbody"
)

// Audio and video named by URI. A Gemini request may name a file of the
// Files API (a fileData part's fileUri, an interaction's media uri)
// rather than hold its bytes; the request does not say how long it is,
// yet Gemini counts a video about 300 tokens a second. The proxy reads
// the Files API's answers it relays (an upload's, a file's, a list's:
// chat.GeminiFiles) and keeps each audio and video file's length by
// tenant and URI, byte-bounded (fileBytes, one tenant at most
// TenantShare of it), so that a later request naming it counts it
// (chat.ParseOwnedFiles). A file uploaded another way, or through
// another replica, counts nothing, as before.

// fileBytes bounds the file lengths kept: about 25,000 files of about
// 170 bytes each (a URI of about 70 bytes, the tenant and the entry),
// one tenant's at most TenantShare of them (about 3,000 at an eighth).
const fileBytes = 4 << 20

// fileAnswerMax bounds a Files API answer the tap reads (a list of files
// is a few hundred bytes a file); a longer one is relayed, not read.
const fileAnswerMax = 1 << 20

// fileKey names a file's length: its tenant's and its URI.
type fileKey struct{ tenant, uri string }

// tapFiles wraps the body of resp, the upstream's answer to r, a request
// of tenant to the Gemini Files API, so that the lengths of the audio and
// video files it describes are kept as the body is read.
func (s *Server) tapFiles(r *http.Request, tenant string, resp *http.Response) {
	if s.proxy.files == nil || resp.StatusCode != http.StatusOK || !strings.Contains(r.URL.Path, "/files") ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return
	}
	resp.Body = httpbody.Tap(resp.Body, fileAnswerMax, func(body []byte) {
		for uri, f := range chat.GeminiFiles(body) {
			s.proxy.files.Put(tenant, fileKey{tenant, uri}, f, int64(len(uri)+len(tenant)+len(f.MIMEType)+64))
		}
	})
}

// fileLengths returns the lengths of tenant's files the proxy knows.
func (s *Server) fileLengths(tenant string) chat.FileLengths {
	if s.proxy.files == nil {
		return nil
	}
	return func(uri string) (chat.MediaFile, bool) { return s.proxy.files.Get(fileKey{tenant, uri}) }
}
