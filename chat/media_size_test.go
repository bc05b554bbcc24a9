package chat

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

// TestImageSize reads each format's size from its base64, from the
// decoded head or, for a JPEG whose frame follows long metadata, from the
// whole stream; wrapped and URL-safe base64 and what is no image are
// handled.
func TestImageSize(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 300, 200))
	enc := func(f func(*bytes.Buffer) error) []byte {
		var buf bytes.Buffer
		if err := f(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	pngData := enc(func(b *bytes.Buffer) error { return png.Encode(b, img) })
	gifData := enc(func(b *bytes.Buffer) error { return gif.Encode(b, img, nil) })
	jpegData := enc(func(b *bytes.Buffer) error { return jpeg.Encode(b, img, nil) })
	// An APP1 segment (as EXIF is) of 6,000 bytes after the SOI marker
	// puts the frame header far past imageHead.
	app := append([]byte{0xff, 0xe1, 6002 >> 8, 6002 & 0xff}, bytes.Repeat([]byte{'x'}, 6000)...)
	longJPEG := append(append(append([]byte{}, jpegData[:2]...), app...), jpegData[2:]...)
	b64 := base64.StdEncoding.EncodeToString
	wrapped := func(s string) string { // MIME style: 76 characters a line
		var b strings.Builder
		for len(s) > 76 {
			b.WriteString(s[:76] + "\r\n")
			s = s[76:]
		}
		b.WriteString(s)
		return b.String()
	}
	for _, tc := range []struct {
		name string
		data string
		ok   bool
	}{
		{"png", b64(pngData), true},
		{"gif", b64(gifData), true},
		{"jpeg", b64(jpegData), true},
		{"jpeg with its frame after 6,000 bytes of metadata", b64(longJPEG), true},
		{"base64 wrapped in lines", wrapped(b64(longJPEG)), true},
		{"URL-safe base64 (the Python SDKs')", base64.URLEncoding.EncodeToString(pngData), true},
		{"URL-safe, a long JPEG", base64.URLEncoding.EncodeToString(longJPEG), true},
		{"empty", "", false},
		{"not base64", "%%%%not base64%%%%", false},
		{"base64 of no image", b64(bytes.Repeat([]byte("text "), 1000)), false},
		{"a png cut inside its header", b64(pngData[:12]), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, form := range []string{"string", "bytes"} {
				var w, h int
				var ok bool
				if form == "string" {
					w, h, ok = imageSize(tc.data)
				} else {
					w, h, ok = imageSize([]byte(tc.data))
				}
				if ok != tc.ok || ok && (w != 300 || h != 200) {
					t.Errorf("%s: imageSize = %d×%d %v, want 300×200 %v", form, w, h, ok, tc.ok)
				}
			}
		})
	}
}
