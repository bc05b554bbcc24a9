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
	c     *memo.Cache[string, chat.MediaFile]
	tried *memo.Cache[string, int] // lookups that did not tell a length, by URI: failures, or -1 once the API answered
}

// fileLengthBytes bounds a fileLengths; fileAnswerMax a Files API answer
// it reads (a longer one goes on unread).
const (
	fileLengthBytes = 1 << 20
	fileAnswerMax   = 1 << 20
)

func newFileLengths() *fileLengths {
	return &fileLengths{c: memo.NewCache[string, chat.MediaFile](fileLengthBytes, 1), tried: memo.NewCache[string, int](fileTriedBytes, 1)}
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
		f.keep(body)
	})
}

// keep keeps the lengths of the files a Files API answer describes.
func (f *fileLengths) keep(body []byte) {
	for uri, file := range chat.GeminiFiles(body) {
		f.c.Put("", uri, file, int64(len(uri)+len(file.MIMEType)+64))
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
// host), at most fileLookups files a request, fileLookupTimeout in all. A
// file the API answered about without a length (not audio or video, not
// found) is not asked for again; one whose get failed, at most
// fileLookupTries times.
const (
	fileLookups       = 8
	fileLookupTimeout = 3 * time.Second
	fileLookupTries   = 3
	fileTriedBytes    = 128 << 10
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
			if n, _ := f.tried.Get(uri); n >= 0 && n < fileLookupTries {
				*missed = append(*missed, uri)
			}
		}
		return file, ok
	}
}

// lookup asks the Files API, through next, for the files uris name, with
// req's credentials, and reports whether it learned of any.
func (f *fileLengths) lookup(req *http.Request, next func(*http.Request) (*http.Response, error), uris []string) bool {
	ctx, cancel := context.WithTimeout(req.Context(), fileLookupTimeout)
	defer cancel()
	var wg sync.WaitGroup
	var learned atomic.Bool
	for _, uri := range uris[:min(len(uris), fileLookups)] {
		wg.Go(func() {
			answered := false
			if resp, err := next(fileGet(ctx, req, chat.GeminiFilePath(uri))); err == nil {
				body, err := io.ReadAll(io.LimitReader(resp.Body, fileAnswerMax))
				resp.Body.Close()
				answered = err == nil && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests
				if err == nil && resp.StatusCode == http.StatusOK {
					f.keep(body)
				}
			}
			switch _, ok := f.c.Get(uri); {
			case ok:
				learned.Store(true)
			case answered:
				f.tried.Put("", uri, -1, int64(len(uri)+32))
			default:
				n, _ := f.tried.Get(uri)
				f.tried.Put("", uri, n+1, int64(len(uri)+32))
			}
		})
	}
	wg.Wait()
	return learned.Load()
}

// fileGet returns the Files API's get of the file at path
// ("/v1beta/files/ID") on req's host, under the base path req's own path
// has before its version, with req's credentials: its headers and its
// "key" query parameter.
func fileGet(ctx context.Context, req *http.Request, path string) *http.Request {
	g := req.Clone(ctx)
	g.Method, g.Body, g.GetBody, g.ContentLength = http.MethodGet, http.NoBody, nil, 0
	u := *req.URL
	base := ""
	for _, v := range []string{"/v1beta/", "/v1alpha/", "/v1/"} {
		if i := strings.Index(u.Path, v); i >= 0 {
			base = u.Path[:i]
			break
		}
	}
	u.Path, u.RawPath = base+path, ""
	q := url.Values{}
	if k := req.URL.Query()["key"]; len(k) > 0 {
		q["key"] = k
	}
	u.RawQuery = q.Encode()
	g.URL = &u
	g.Header = req.Header.Clone()
	for _, h := range []string{"Content-Type", "Content-Length", "Content-Encoding"} {
		g.Header.Del(h)
	}
	g.Header.Set("Accept", "application/json") // not a streaming request's text/event-stream
	return g
}
