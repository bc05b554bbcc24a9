package chat

import (
	"bytes"
	"encoding/base64"
	"hash/maphash"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/swcmem/swc/internal/memo"
	"github.com/swcmem/swc/tokens"
)

// What a part swc holds as a placeholder counts (swc.Message.MediaTokens):
// the provider reads an image or a thinking block that a message's text
// shows as "[image]" or "[thinking]", and a budget that counted the
// placeholder would let the request through larger than it is.

// Anthropic's image rule: an image whose long edge is over
// anthropicImageEdge pixels is scaled down to it, then one over
// anthropicImagePixels down to that many pixels, and it counts
// width × height / 750 tokens; anthropicImageMax is what an image counts
// whose size swc cannot read (a URL, a file id, a format other than PNG,
// JPEG or GIF): about the most an image counts.
const (
	anthropicImageEdge   = 1568
	anthropicImagePixels = 1.15e6
	anthropicImageMax    = 1600
)

// anthropicImageTokens returns what a w×h image counts by Anthropic's
// rule.
func anthropicImageTokens(w, h int) int {
	if w <= 0 || h <= 0 {
		return anthropicImageMax
	}
	fw, fh := float64(w), float64(h)
	if s := anthropicImageEdge / max(fw, fh); s < 1 {
		fw, fh = fw*s, fh*s
	}
	if s := math.Sqrt(anthropicImagePixels / (fw * fh)); s < 1 {
		fw, fh = fw*s, fh*s
	}
	return min(int(math.Ceil(fw*fh/750)), anthropicImageMax)
}

// anthropicBlockTokens returns what an Anthropic content block of type
// typ (raw, its JSON) counts beyond its placeholder: an image by
// anthropicImageTokens (its size read from base64 PNG, JPEG or GIF data),
// a thinking block its thinking's tokens (cl100k_base), a redacted one a
// token per 4 bytes of its data, a document anthropicDocumentTokens; 0
// for any other type.
func anthropicBlockTokens(typ string, raw []byte) int {
	switch typ {
	case "image", "document":
		return cachedCount(raw, func() int { return anthropicMediaTokens(typ, raw) })
	}
	return anthropicMediaTokens(typ, raw)
}

// anthropicMediaTokens is anthropicBlockTokens, uncached.
func anthropicMediaTokens(typ string, raw []byte) int {
	switch typ {
	case "image":
		src := members(member(raw, "source"), "type", "data")
		if string(stringBytes(src[0])) == "base64" {
			if w, h, ok := base64Size(src[1]); ok {
				return anthropicImageTokens(w, h)
			}
		}
		return anthropicImageMax
	case "thinking":
		return tokens.CountCached(unquoted(member(raw, "thinking")))
	case "redacted_thinking":
		return (len(stringMember(raw, "data")) + 3) / 4
	case "document":
		return anthropicDocumentTokens(raw)
	}
	return 0
}

// openAIPartTokens returns what a Chat Completions content part of type
// typ (raw, its JSON) counts beyond its placeholder: an image_url part by
// ImageTokens' rule, a file part by fileTokens; 0 for any other type.
func openAIPartTokens(typ string, raw []byte) int {
	switch typ {
	case "image_url":
		return cachedCount(raw, func() int { return openAIImageTokens(raw) })
	case "file":
		return cachedCount(raw, func() int { return fileTokens(stringMember(member(raw, "file"), "file_data")) })
	}
	return 0
}

// openAIImageTokens is what an image_url part counts, uncached.
func openAIImageTokens(raw []byte) int {
	iu := member(raw, "image_url")
	du := members(iu, "detail", "url")
	if string(stringBytes(du[0])) == "low" {
		return imageBase
	}
	url := du[1]
	if len(url) == 0 && len(iu) > 0 && iu[0] == '"' { // the older form: "image_url": "URL"
		url = iu
	}
	if data, ok := bytes.CutPrefix(stringBytes(url), []byte("data:")); ok {
		if meta, b64, found := bytes.Cut(data, []byte(",")); found && bytes.HasSuffix(meta, []byte(";base64")) {
			if w, h, ok := imageSize(b64); ok {
				return tileTokens(w, h)
			}
		}
	}
	return tileTokens(DefaultImageSide, DefaultImageSide)
}

// member returns the JSON value of the member name of the object raw (nil
// when raw is no object or has no such member; the last when repeated, as
// encoding/json reads it).
func member(raw []byte, name string) []byte { return members(raw, name, "")[0] }

// members returns the JSON values of the members a and b (b "": none) of
// the object raw, as member returns each, in one pass over raw.
func members(raw []byte, a, b string) (out [2][]byte) {
	if len(raw) == 0 || raw[0] != '{' {
		return out
	}
	md := decoderOf(raw)
	defer md.release()
	dec := &md.dec
	if _, err := dec.ReadToken(); err != nil {
		return out
	}
	for dec.PeekKind() == '"' {
		key, err := dec.ReadToken()
		if err != nil {
			return out
		}
		k := -1
		switch key.String() {
		case a:
			k = 0
		case b:
			if b != "" {
				k = 1
			}
		}
		if k < 0 {
			if dec.SkipValue() != nil {
				return out
			}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return out
		}
		end := int(dec.InputOffset()) // v as it stands in raw: no copy
		out[k] = raw[end-len(v) : end]
	}
	return out
}

// memberDecoder is a decoder member reuses (sync.Pool): a new one costs
// more than reading a small block. It reads from a bytes.Buffer, which
// jsontext parses in place: a value skipped or read (an image's megabytes
// of base64) is not copied.
type memberDecoder struct {
	b   bytes.Buffer
	dec jsontext.Decoder
}

var memberDecoders = sync.Pool{New: func() any { return new(memberDecoder) }}

// decoderOf returns a pooled decoder reading raw; release returns it.
func decoderOf(raw []byte) *memberDecoder {
	md := memberDecoders.Get().(*memberDecoder)
	md.b = *bytes.NewBuffer(raw)
	md.dec.Reset(&md.b, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return md
}

// release returns md to the pool, holding nothing of what it read.
func (md *memberDecoder) release() {
	md.b = bytes.Buffer{}
	md.dec.Reset(&md.b)
	memberDecoders.Put(md)
}

// stringBytes returns the bytes of the JSON string v as written, without
// its quotes (nil for any other value): base64 and URLs need no
// unescaping (a string with escapes is unquoted).
func stringBytes(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	out, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return nil
	}
	return out
}

// stringMember returns stringBytes of the member name of raw.
func stringMember(raw []byte, name string) []byte { return stringBytes(member(raw, name)) }

// unquoted returns the JSON string v as a Go string ("" for any other
// value).
func unquoted(v []byte) string { return string(stringBytes(v)) }

// base64Size reads the size of the image in the base64 JSON string v from
// its header, without decoding the pixels.
func base64Size(v []byte) (w, h int, ok bool) {
	return imageSize(stringBytes(v))
}

// imageHead is how much of an image's base64 imageSize decodes first:
// 1,536 bytes hold a PNG's or GIF's size and most JPEGs' (a JPEG whose
// frame header comes after longer metadata is read from the start again,
// as a stream).
const imageHead = 2048

// imageSize reads the size of the PNG, JPEG or GIF image whose base64
// (standard or URL-safe) is data from its header, without decoding the
// pixels.
func imageSize[T string | []byte](data T) (w, h int, ok bool) {
	if len(data) == 0 {
		return 0, 0, false
	}
	var head [imageHead / 4 * 3]byte
	chunk := []byte(data[:min(len(data), imageHead)])
	enc := base64.StdEncoding
	if bytes.ContainsAny(chunk, "-_") {
		enc = base64.URLEncoding // the Python SDKs send URL-safe base64
	}
	if n, err := enc.WithPadding(base64.NoPadding).Decode(head[:], bytes.TrimRight(chunk, "=")); err == nil {
		if w, h, ok := sniffSize(bytes.NewReader(head[:n])); ok {
			return w, h, true
		}
		if len(data) <= imageHead {
			return 0, 0, false
		}
	}
	var src io.Reader
	switch d := any(data).(type) {
	case string:
		src = strings.NewReader(d)
	case []byte:
		src = bytes.NewReader(d)
	}
	return sniffSize(base64.NewDecoder(enc, src))
}

// sniffSize reads the size of the PNG, JPEG or GIF image r holds, its
// format known by its first bytes (what image.DecodeConfig does, without
// its buffer).
func sniffSize(r io.Reader) (w, h int, ok bool) {
	var magic [4]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return 0, 0, false
	}
	r = io.MultiReader(bytes.NewReader(magic[:]), r)
	var cfg image.Config
	var err error
	switch {
	case string(magic[:]) == "\x89PNG":
		cfg, err = png.DecodeConfig(r)
	case string(magic[:3]) == "GIF":
		cfg, err = gif.DecodeConfig(r)
	case magic[0] == 0xff && magic[1] == 0xd8:
		cfg, err = jpeg.DecodeConfig(r)
	default:
		return 0, 0, false
	}
	if err != nil {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}

// cachedCount returns count(), kept by a hash of raw when raw is large
// (mediaCacheMin bytes or more: an image's or a PDF's base64): a proxy
// reads the same picture on every request of a conversation, and a hash
// (about 10 GB/s) costs a tenth of reading the block again.
func cachedCount(raw []byte, count func() int) int {
	if len(raw) < mediaCacheMin {
		return count()
	}
	key := maphash.Bytes(mediaSeed, raw)
	if n, ok := mediaCache.Get(key); ok {
		return n
	}
	n := count()
	mediaCache.Put(key, n)
	return n
}

const mediaCacheMin = 4096

var (
	mediaSeed  = maphash.MakeSeed()
	mediaCache = newCounts(4096)
)

// newCounts returns a memo of counts by hash holding about n of them (two
// generations of n/2, memo.Memo).
func newCounts(n int) *memo.Memo[uint64, int] {
	return memo.New(n/2*(memoEntry+8), func(uint64, int) int { return 8 })
}

// memoEntry is what memo.Memo adds to each entry's size.
const memoEntry = 64
