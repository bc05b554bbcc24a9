package chat

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"hash/maphash"
	"io"
	"strconv"
	"strings"

	"github.com/swcmem/swc/tokens"
)

// What a document part counts (swc.Message.MediaTokens), where the
// message's text holds its placeholder ("[document]"): a PDF counts
// pdfPageTokens a page (Anthropic and OpenAI read each page's text and an
// image of it; Anthropic's documentation puts the text at 1,500–3,000
// tokens a page, so a page counts the most of that), geminiPDFPageTokens
// a page under Gemini (its default for a PDF page); a plain-text
// document counts its text's tokens. A PDF swc cannot read (a URL, a file
// id) counts one page.
const (
	pdfPageTokens       = 3000
	geminiPDFPageTokens = 560
)

// pdfTokens returns what the PDF whose base64 is data counts at perPage
// tokens a page.
func pdfTokens[T string | []byte](data T, perPage int) int {
	return max(1, pdfPages(data)) * perPage
}

// anthropicDocumentTokens returns what an Anthropic document block (raw,
// its JSON) counts: a base64 PDF by its pages, a text source by its
// text, a content source by its text blocks, any other one page.
func anthropicDocumentTokens(raw []byte) int {
	src := member(raw, "source")
	f := members(src, "type", "data")
	switch string(stringBytes(f[0])) {
	case "base64":
		return pdfTokens(stringBytes(f[1]), pdfPageTokens)
	case "text":
		return tokens.CountCached(unquoted(f[1]))
	case "content":
		content := member(src, "content")
		if len(content) > 0 && content[0] == '"' {
			return tokens.CountCached(unquoted(content))
		}
		n := 0
		for _, b := range elements(content) {
			n += tokens.CountCached(unquoted(member(b, "text")))
		}
		return n
	}
	return pdfPageTokens
}

// fileTokens returns what an OpenAI file part counts: file_data, a
// data: URL (or bare base64) of a PDF, by its pages; a file swc cannot
// read (a file id, a URL) one page.
func fileTokens(fileData []byte) int {
	if data, ok := bytes.CutPrefix(fileData, []byte("data:")); ok {
		meta, b64, found := bytes.Cut(data, []byte(","))
		if !found || !bytes.HasSuffix(meta, []byte(";base64")) {
			return pdfPageTokens
		}
		fileData = b64
	}
	return pdfTokens(fileData, pdfPageTokens)
}

// elements returns the values of the JSON array raw (nil for any other
// value), each a slice of raw.
func elements(raw []byte) [][]byte {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	md := decoderOf(raw)
	defer md.release()
	dec := &md.dec
	if _, err := dec.ReadToken(); err != nil {
		return nil
	}
	var out [][]byte
	for dec.PeekKind() != ']' && dec.PeekKind() != 0 {
		v, err := dec.ReadValue()
		if err != nil {
			return out
		}
		end := int(dec.InputOffset())
		out = append(out, raw[end-len(v):end])
	}
	return out
}

// pdfPages returns the pages of the PDF whose standard base64 is data (0
// when it is none): its page objects, counted where they are written or,
// in a PDF that packs its objects in compressed object streams, where
// those inflate to; failing both, the largest page count of its page
// tree. The counts of about 256 PDFs are kept (pdfCache): a proxy reads
// the same document on every request of a conversation.
func pdfPages[T string | []byte](data T) int {
	if len(data) == 0 {
		return 0
	}
	var key uint64
	var src io.Reader
	switch d := any(data).(type) {
	case string:
		key, src = maphash.String(pdfSeed, d), strings.NewReader(d)
	case []byte:
		key, src = maphash.Bytes(pdfSeed, d), bytes.NewReader(d)
	}
	if n, ok := pdfCache.Get(key); ok {
		return n
	}
	// One decode into a buffer of the decoded size; base64 with line
	// breaks, which that refuses, as a stream.
	var pdf []byte
	var err error
	n := 0
	if base64.StdEncoding.DecodedLen(len(data)) <= pdfMaxBytes {
		switch d := any(data).(type) {
		case string:
			pdf, err = base64.StdEncoding.DecodeString(d)
		case []byte:
			pdf, err = base64.StdEncoding.AppendDecode(nil, d)
		}
	}
	if err != nil || pdf == nil {
		pdf, err = io.ReadAll(io.LimitReader(base64.NewDecoder(base64.StdEncoding, src), pdfMaxBytes))
	}
	if err == nil && bytes.Contains(pdf[:min(len(pdf), 1024)], []byte("%PDF-")) { // its header, within its first 1,024 bytes
		n = countPages(pdf)
	}
	pdfCache.Put(key, n)
	return n
}

// pdfMaxBytes bounds what pdfPages decodes of one PDF (Anthropic takes at
// most 32 MB a request), pdfInflateMax what it inflates of its object
// streams, all of them together (a stream that inflates to more, a zip
// bomb, is read no further).
const (
	pdfMaxBytes   = 64 << 20
	pdfInflateMax = 16 << 20
)

var (
	pdfSeed  = maphash.MakeSeed()
	pdfCache = newCounts(256)
)

// countPages counts the pages of the PDF pdf as pdfPages says: the
// largest /Count of a page tree node (the root's), in the file or in its
// object streams; failing that, the page objects there. Every search is
// bounded (pdfDictSpan, one pass over the streams), so a crafted file
// costs time linear in its size.
func countPages(pdf []byte) int {
	objects, count := len(typed(pdf, "Page")), treeCount(pdf)
	budget := int64(pdfInflateMax)
	for next, streams := 0, 0; budget > 0 && streams < pdfMaxDicts; streams++ {
		at := indexTyped(pdf[next:], "ObjStm")
		if at < 0 {
			break
		}
		at += next
		window := pdf[at:min(len(pdf), at+pdfDictSpan)]
		s := bytes.Index(window, []byte("stream"))
		if s < 0 {
			next = at
			continue
		}
		body := bytes.TrimLeft(pdf[at+s+len("stream"):], "\r\n")
		e := bytes.Index(body, []byte("endstream"))
		if e < 0 {
			e = len(body)
		}
		next = len(pdf) - len(body) + e // past this stream: its bytes are no dictionary
		zr, err := zlib.NewReader(bytes.NewReader(body[:e]))
		if err != nil {
			continue
		}
		inflated, _ := io.ReadAll(io.LimitReader(zr, budget))
		budget -= int64(len(inflated))
		objects += len(typed(inflated, "Page"))
		count = max(count, treeCount(inflated))
	}
	if count > 0 {
		return count
	}
	return objects
}

// pdfDictSpan bounds how far countPages looks around a /Type for the rest
// of its dictionary: the "<<" before it, the ">>" or "stream" after it;
// pdfMaxDicts how many object streams, and how many page tree nodes in
// each part, it reads (a real PDF has tens or hundreds).
const (
	pdfDictSpan = 4096
	pdfMaxDicts = 4096
)

// treeCount returns the largest /Count of a /Type /Pages dictionary of
// pdf (0 when none).
func treeCount(pdf []byte) int {
	n := 0
	nodes := typed(pdf, "Pages")
	for _, at := range nodes[:min(len(nodes), pdfMaxDicts)] {
		open := bytes.LastIndex(pdf[max(0, at-pdfDictSpan):at], []byte("<<"))
		end := bytes.Index(pdf[at:min(len(pdf), at+pdfDictSpan)], []byte(">>"))
		if open < 0 || end < 0 {
			continue
		}
		dict := pdf[max(0, at-pdfDictSpan)+open : at+end]
		if i := bytes.Index(dict, []byte("/Count")); i >= 0 {
			digits := bytes.TrimLeft(dict[i+len("/Count"):], " \t\r\n")
			k := 0
			for k < len(digits) && k < 9 && digits[k] >= '0' && digits[k] <= '9' {
				k++
			}
			v, _ := strconv.Atoi(string(digits[:k]))
			n = max(n, v)
		}
	}
	return n
}

// indexTyped returns where the first "/Type /NAME" of pdf ends, or -1.
func indexTyped(pdf []byte, name string) int {
	for i := 0; ; {
		j := bytes.Index(pdf[i:], []byte("/Type"))
		if j < 0 {
			return -1
		}
		i += j + len("/Type")
		if k, ok := typedAt(pdf, i, name); ok {
			return k
		}
	}
}

// typed returns where each "/Type /NAME" of pdf ends (any white space
// between the two names, NAME whole: not the start of a longer name).
func typed(pdf []byte, name string) []int {
	var out []int
	for i := 0; ; {
		j := bytes.Index(pdf[i:], []byte("/Type"))
		if j < 0 {
			return out
		}
		i += j + len("/Type")
		if k, ok := typedAt(pdf, i, name); ok {
			out = append(out, k)
			i = k
		}
	}
}

// typedAt reports whether " /NAME" (any white space, NAME whole) follows
// at i of pdf, and where it ends.
func typedAt(pdf []byte, i int, name string) (int, bool) {
	k := i
	for k < len(pdf) && isPDFSpace(pdf[k]) {
		k++
	}
	if k >= len(pdf) || pdf[k] != '/' || !bytes.HasPrefix(pdf[k+1:], []byte(name)) {
		return 0, false
	}
	k += 1 + len(name)
	if k < len(pdf) && !isPDFSpace(pdf[k]) && strings.IndexByte("()<>[]{}/%", pdf[k]) < 0 {
		return 0, false // a longer name: /Pages for /Page
	}
	return k, true
}

// isPDFSpace reports whether c is white space in PDF syntax.
func isPDFSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == 0
}
