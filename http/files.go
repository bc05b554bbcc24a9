package http

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
// another replica, it asks the Files API for (lookupFiles, below).

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
	resp.Body = httpbody.Tap(resp.Body, fileAnswerMax, func(body []byte) { s.keepFiles(tenant, body, "") })
}

// fileLengths returns the lengths of tenant's files the proxy knows.
func (s *Server) fileLengths(tenant string) chat.FileLengths {
	if s.proxy.files == nil {
		return nil
	}
	return func(uri string) (chat.MediaFile, bool) { return s.proxy.files.Get(fileKey{tenant, uri}) }
}

// Files the proxy does not know. A request may name a file uploaded
// another way (straight to Google, by another program) or through another
// replica: the proxy then asks the Files API for it (GET /v1beta/files/ID,
// with the server's key, as the client could through swc), at most
// fileLookups files a request, fileLookupTimeout in all, one lookup of a
// tenant's file at a time whatever the requests naming it, and remembers a
// file it could not learn of for fileMissTTL, so a tool loop naming it
// pays once.
// What it learns is kept as a relayed answer's is; a lookup that fails
// leaves the file counting nothing, as before, and the request goes on.
const (
	fileLookups       = 8
	fileLookupTimeout = 3 * time.Second
	fileMissTTL       = 10 * time.Minute
	fileMissBytes     = 256 << 10 // about 1,500 files not found, by tenant and URI
)

// missingFiles wraps the lengths of tenant's files so that a URI of the
// Files API it does not know, and has not failed to learn of lately, is
// added to *missed (each once).
func (s *Server) missingFiles(tenant string, missed *[]string) chat.FileLengths {
	known := s.fileLengths(tenant)
	if known == nil {
		return nil
	}
	return func(uri string) (chat.MediaFile, bool) {
		f, ok := known(uri)
		if !ok && !slices.Contains(*missed, uri) && chat.GeminiFilePath(uri) != "" {
			if at, miss := s.proxy.fileMisses.Get(fileKey{tenant, uri}); !miss || s.now().Sub(at) >= fileMissTTL {
				*missed = append(*missed, uri)
			}
		}
		return f, ok
	}
}

// lookupFiles asks the upstream for the files uris name, for the client
// of r (tenant), and keeps what it learns; it reports whether it learned
// of any. A lookup is shared by the requests naming the file while it
// runs and outlives the one that started it (a client gone does not make
// the others count nothing); each request waits for it until its own
// context ends or fileLookupTimeout passes.
func (s *Server) lookupFiles(r *http.Request, up Upstream, tenant string, uris []string) bool {
	wait, cancel := context.WithTimeout(r.Context(), fileLookupTimeout)
	defer cancel()
	// The lookups outlive r: what they read of it is copied now, while r
	// is the handler's.
	get := r.Clone(context.WithoutCancel(r.Context()))
	get.Method, get.Body, get.ContentLength = http.MethodGet, nil, 0
	for _, h := range []string{"Content-Type", "Content-Encoding", "Accept-Encoding"} {
		get.Header.Del(h)
	}
	get.Header.Set("Accept", "application/json") // not a streaming request's text/event-stream
	var wg sync.WaitGroup
	var learned atomic.Bool
	for _, uri := range uris[:min(len(uris), fileLookups)] {
		wg.Go(func() {
			ch := s.proxy.fileLookup.DoChan(tenant+"\x00"+uri, func() (any, error) {
				ctx, cancel := context.WithTimeout(get.Context(), fileLookupTimeout)
				defer cancel()
				return s.lookupFile(ctx, get, up, tenant, uri), nil
			})
			select {
			case res := <-ch:
				if res.Val.(bool) {
					learned.Store(true)
				}
			case <-wait.Done():
			}
		})
	}
	wg.Wait()
	return learned.Load()
}

// lookupFile asks the upstream for the file uri names, by a get made from
// base (the client's request as a bodiless GET, its credentials), and
// reports whether its length is known now. A file it could not learn of
// is not asked for again for fileMissTTL.
func (s *Server) lookupFile(ctx context.Context, base *http.Request, up Upstream, tenant, uri string) bool {
	key := fileKey{tenant, uri}
	if _, ok := s.proxy.files.Get(key); ok {
		return true // learned by a lookup that just ended
	}
	get := base.Clone(ctx)
	get.URL = &url.URL{Path: chat.GeminiFilePath(uri)}
	result := "failed"
	defer func() { s.proxy.metrics.fileLookups.WithLabelValues(result).Inc() }()
	req, err := s.upstreamRequest(get, protoGemini, up, bodyOf(nil))
	var resp *http.Response
	if err == nil {
		resp, err = s.proxy.client.Do(req)
	}
	var body []byte
	if err == nil {
		body, err = io.ReadAll(io.LimitReader(resp.Body, fileAnswerMax))
		resp.Body.Close()
	}
	switch {
	case err != nil:
		s.logger().Warn("proxy: Files API lookup", "file", get.URL.Path, "err", netErrorKind(err))
	case resp.StatusCode != http.StatusOK:
		result = "unknown"
		s.logger().Warn("proxy: Files API lookup", "file", get.URL.Path, "status", resp.StatusCode)
	default:
		result = "unknown"
		s.keepFiles(tenant, body, uri)
	}
	if _, ok := s.proxy.files.Get(key); ok {
		result = "found"
		return true
	}
	s.proxy.fileMisses.Put(tenant, key, s.now(), int64(len(uri)+len(tenant)+64))
	return false
}

// keepFiles keeps the lengths of the audio and video files a Files API
// answer of tenant's describes, by their URIs; asked, when set, is the URI
// a get of one file was for, under which a file it describes alone is
// kept too (a request may name a file by another version's URI, or a
// gateway's host).
func (s *Server) keepFiles(tenant string, body []byte, asked string) {
	files := chat.GeminiFiles(body)
	for uri, f := range files {
		s.proxy.files.Put(tenant, fileKey{tenant, uri}, f, int64(len(uri)+len(tenant)+len(f.MIMEType)+64))
		if _, ok := files[asked]; !ok && asked != "" && len(files) == 1 {
			s.proxy.files.Put(tenant, fileKey{tenant, asked}, f, int64(len(asked)+len(tenant)+len(f.MIMEType)+64))
		}
	}
}
