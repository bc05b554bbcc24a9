package chat

import (
	"bytes"
	"encoding/json"
	"unsafe"

	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/internal/rawjson"
)

// Gemini CLI resends its whole history with every request, as Codex does
// (responses_memo.go): the contents of a Gemini request are decoded once
// and remembered by their bytes (contentMemo), with the media tokens they
// count under the request's media resolution and model generation; a later
// request whose content has the same bytes and the same resolution gets
// the same decoding. The remembered strings are of the memo's own copy of
// the content.

// contentMemoBytes bounds the contents remembered per generation (two
// generations), until swc serve's --memory-limit sizes the shared memos.
const contentMemoBytes = 8 << 20

var contentMemo = memo.NewShared(contentMemoBytes, func(k string, e contentEntry) int {
	n := len(k) + 64
	for _, p := range e.dc.parts {
		n += len(p.text) + len(p.key) + 64
		if p.call != nil {
			n += len(p.call.ID) + len(p.call.Name) + len(p.call.args)
		}
		if p.resp != nil {
			n += len(p.resp.ID) + len(p.resp.Name) + len(p.resp.text)
		}
	}
	return n
})

// contentEntry is a remembered content: its decoding, the media counting
// it was decoded under, and its key, the memo's own copy of its bytes.
type contentEntry struct {
	dc     *gContent
	level  string
	legacy bool
	key    string
}

// decodeGeminiContentMemo is decodeGeminiContent, remembered for a content
// of minMemoItem bytes or more that decodes without error under res,
// unless its media's count depends on the request's file lengths (a
// fileData part with res.files set). The gContent it returns is shared:
// the caller must not change it.
func decodeGeminiContentMemo(raw json.RawMessage, where string, res geminiMedia) (*gContent, error) {
	if len(raw) < minMemoItem || !memoItems || !rawjson.Fast ||
		res.files != nil && (bytes.Contains(raw, []byte(`"fileData"`)) || bytes.Contains(raw, []byte(`"file_data"`))) {
		return decodeGeminiContent(raw, where, res)
	}
	if e, ok := contentMemo.GetOwn(unsafe.String(&raw[0], len(raw)), func(e contentEntry) string { return e.key }); ok && e.level == res.level && e.legacy == res.legacy {
		return e.dc, nil
	}
	own := bytes.Clone(raw)
	dc, err := decodeGeminiContent(own, where, res)
	if err != nil {
		return nil, err
	}
	key := unsafe.String(&own[0], len(own))
	contentMemo.Put(key, contentEntry{dc: dc, level: res.level, legacy: res.legacy, key: key})
	return dc, nil
}
