package memory

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
	"github.com/swcmem/swc/internal/memo"
)

// fileLengths keeps the lengths of the audio and video files the Gemini
// Files API's answers described (chat.GeminiFiles), by URI, for the
// requests of one middleware that name them (GeminiMiddleware,
// InteractionsMiddleware): bounded to about 7,000 files.
type fileLengths struct {
	c        *memo.Cache[string, chat.MediaFile]
	mu       sync.Mutex
	tried    *memo.Cache[string, int] // lookups that did not tell a length, by URI: failures, or -1 once the API answered (mu)
	inflight map[string]chan struct{} // lookups under way, by URI, closed when done (mu)
}

// fileLengthBytes bounds a fileLengths; fileAnswerMax a Files API answer
// it reads (a longer one goes on unread).
const (
	fileLengthBytes = 1 << 20
	fileAnswerMax   = 1 << 20
)

func newFileLengths() *fileLengths {
	return &fileLengths{c: memo.NewCache[string, chat.MediaFile](fileLengthBytes, 1), tried: memo.NewCache[string, int](fileTriedBytes, 1),
		inflight: map[string]chan struct{}{}}
}

// answers reports whether req is a request of the Files API whose answer
// describes files: an upload's, a get's, a list's.
func (f *fileLengths) answers(req *http.Request) bool {
	return (req.Method == http.MethodGet || req.Method == http.MethodPost) && strings.Contains(req.URL.Path, "/files")
}

// tap wraps resp's body so that the files it describes are kept as it is
// read.
func (f *fileLengths) tap(resp *http.Response) {
	if resp == nil || resp.StatusCode != http.StatusOK || resp.Body == nil || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return
	}
	resp.Body = httpbody.Tap(resp.Body, fileAnswerMax, func(body []byte) {
		f.keep(body, "")
	})
}

// keep keeps the lengths of the files a Files API answer describes, by
// their URIs; asked, when set, is the URI a get of one file was for, under
// which a file it describes alone is kept too (a request may name a file
// by another version's URI, or a gateway's host).
func (f *fileLengths) keep(body []byte, asked string) {
	files := chat.GeminiFiles(body)
	for uri, file := range files {
		f.c.Put("", uri, file, int64(len(uri)+len(file.MIMEType)+64))
		if _, ok := files[asked]; !ok && asked != "" && len(files) == 1 {
			f.c.Put("", asked, file, int64(len(asked)+len(file.MIMEType)+64))
		}
	}
}

// lengths returns the lengths kept (nil for a nil f).
func (f *fileLengths) lengths() chat.FileLengths {
	if f == nil {
		return nil
	}
	return f.c.Get
}

// A request may name a file the middleware has not seen uploaded (by
// another program, another process, or an SDK client without it): it
// then asks the Files API for it through the client's transport, with the
// request's own credentials (GET …/v1beta/files/ID on the request's
// host), at most fileLookups files a request, in fileLookupTimeout or a
// quarter of the time the request's deadline leaves, whichever is less;
// one lookup of a file at a time, which outlives the request that started
// it. A file the API answered about without a length (not audio or video,
// not found) is not asked for again; one whose get failed, at most
// fileLookupTries times.
const (
	fileLookups       = 8
	fileLookupTimeout = 3 * time.Second
	fileLookupTries   = 3
	fileTriedBytes    = 128 << 10
	minLookup         = 10 * time.Millisecond
)

// missing returns the lengths kept, adding to *missed (each once) a URI
// of the Files API they lack and that is still worth asking for (nil for
// a nil f).
func (f *fileLengths) missing(missed *[]string) chat.FileLengths {
	if f == nil {
		return nil
	}
	return func(uri string) (chat.MediaFile, bool) {
		file, ok := f.c.Get(uri)
		if !ok && !slices.Contains(*missed, uri) && chat.GeminiFilePath(uri) != "" {
			f.mu.Lock()
			n, _ := f.tried.Get(uri)
			f.mu.Unlock()
			if n >= 0 && n < fileLookupTries {
				*missed = append(*missed, uri)
			}
		}
		return file, ok
	}
}

// lookup asks the Files API, through next, for the files uris name, with
// req's credentials, and reports whether it learned of any.
func (f *fileLengths) lookup(req *http.Request, next func(*http.Request) (*http.Response, error), uris []string) bool {
	timeout := fileLookupTimeout
	if d, ok := req.Context().Deadline(); ok {
		timeout = min(timeout, time.Until(d)/4)
	}
	if timeout < minLookup {
		return false // no time to ask: the file counts nothing, as unknown
	}
	wait, cancel := context.WithTimeout(req.Context(), timeout)
	defer cancel()
	var wg sync.WaitGroup
	var learned atomic.Bool
	for _, uri := range uris[:min(len(uris), fileLookups)] {
		f.mu.Lock()
		done, running := f.inflight[uri]
		if !running {
			done = make(chan struct{})
			f.inflight[uri] = done
			// The lookup outlives req (a client gone does not spoil the
			// others'): its request is made now, while req is the caller's.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), timeout)
			get := fileGet(ctx, req, chat.GeminiFilePath(uri))
			go func() {
				defer cancel()
				f.lookupOne(get, next, uri)
				f.mu.Lock()
				delete(f.inflight, uri)
				f.mu.Unlock()
				close(done)
			}()
		}
		f.mu.Unlock()
		wg.Go(func() {
			select {
			case <-done:
				if _, ok := f.c.Get(uri); ok {
					learned.Store(true)
				}
			case <-wait.Done():
			}
		})
	}
	wg.Wait()
	return learned.Load()
}

// lookupOne asks the Files API, through next, for the file uri names by
// get and notes a lookup that did not tell its length.
func (f *fileLengths) lookupOne(get *http.Request, next func(*http.Request) (*http.Response, error), uri string) {
	answered := false
	if resp, err := next(get); err == nil {
		body, err := io.ReadAll(io.LimitReader(resp.Body, fileAnswerMax))
		resp.Body.Close()
		answered = err == nil && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests
		if err == nil && resp.StatusCode == http.StatusOK {
			f.keep(body, uri)
		}
	}
	if _, ok := f.c.Get(uri); ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n, _ := f.tried.Get(uri)
	if answered {
		n = -1
	} else if n >= 0 {
		n++
	}
	f.tried.Put("", uri, n, int64(len(uri)+32))
}

// fileGet returns the Files API's get of the file at path
// ("/v1beta/files/ID") on req's host, under the base path req's own path
// has before its first version segment, with req's credentials: its
// headers and its "key" query parameter.
func fileGet(ctx context.Context, req *http.Request, path string) *http.Request {
	g := req.Clone(ctx)
	g.Method, g.Body, g.GetBody, g.ContentLength = http.MethodGet, http.NoBody, nil, 0
	u := *req.URL
	escaped := u.EscapedPath()
	base := ""
	for i := 0; i < len(escaped); i++ {
		if escaped[i] != '/' {
			continue
		}
		if rest := escaped[i:]; strings.HasPrefix(rest, "/v1beta/") || strings.HasPrefix(rest, "/v1alpha/") || strings.HasPrefix(rest, "/v1/") {
			base = escaped[:i]
			break
		}
	}
	if p, err := url.PathUnescape(base + path); err == nil {
		u.Path, u.RawPath = p, base+path
	}
	q := url.Values{}
	if k := req.URL.Query()["key"]; len(k) > 0 {
		q["key"] = k
	}
	u.RawQuery = q.Encode()
	g.URL = &u
	g.Header = req.Header.Clone()
	for _, h := range []string{"Content-Type", "Content-Length", "Content-Encoding", "Accept-Encoding"} {
		g.Header.Del(h)
	}
	g.Header.Set("Accept", "application/json") // not a streaming request's text/event-stream
	return g
}
