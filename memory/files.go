package memory

import (
	"net/http"
	"strings"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/httpbody"
	"github.com/swcmem/swc/internal/memo"
)

// fileLengths keeps the lengths of the audio and video files the Gemini
// Files API's answers described (chat.GeminiFiles), by URI, for the
// requests of one middleware that name them (GeminiMiddleware,
// InteractionsMiddleware): bounded to about 7,000 files.
type fileLengths struct {
	c *memo.Cache[string, chat.MediaFile]
}

// fileLengthBytes bounds a fileLengths; fileAnswerMax a Files API answer
// it reads (a longer one goes on unread).
const (
	fileLengthBytes = 1 << 20
	fileAnswerMax   = 1 << 20
)

func newFileLengths() *fileLengths {
	return &fileLengths{c: memo.NewCache[string, chat.MediaFile](fileLengthBytes, 1)}
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
		for uri, file := range chat.GeminiFiles(body) {
			f.c.Put("", uri, file, int64(len(uri)+len(file.MIMEType)+64))
		}
	})
}

// lengths returns the lengths kept (nil for a nil f).
func (f *fileLengths) lengths() chat.FileLengths {
	if f == nil {
		return nil
	}
	return f.c.Get
}
