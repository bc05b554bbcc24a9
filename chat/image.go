package chat

import "strings"

// Image token rule (OpenAI's published rule for its GPT-4o-class models):
// an image at detail "low" is 85 tokens; otherwise it is scaled to fit
// 2048×2048, then down so that its shorter side is at most 768 pixels, and
// counts 85 + 170 per 512-pixel tile. "auto" is counted as high, so the
// budget holds whatever the provider picks.
const (
	imageBase = 85
	imageTile = 170
	// DefaultImageSide is the side assumed for an image whose size swc
	// cannot read (a remote URL, a file id, a format other than PNG, JPEG
	// or GIF): 1024×1024, 765 tokens.
	DefaultImageSide = 1024
)

// ImageTokens returns the tokens an image part counts by the rule above:
// url is its image_url (a data: URL's PNG, JPEG or GIF header gives the
// size; anything else is DefaultImageSide square), detail its detail.
func ImageTokens(url, detail string) int {
	if detail == "low" {
		return imageBase
	}
	w, h := DefaultImageSide, DefaultImageSide
	if cw, ch, ok := dataURLSize(url); ok {
		w, h = cw, ch
	}
	return tileTokens(w, h)
}

// tileTokens is the high-detail count of a w×h image.
func tileTokens(w, h int) int {
	if w <= 0 || h <= 0 {
		return imageBase
	}
	fw, fh := float64(w), float64(h)
	if s := 2048 / max(fw, fh); s < 1 {
		fw, fh = fw*s, fh*s
	}
	if s := 768 / min(fw, fh); s < 1 {
		fw, fh = fw*s, fh*s
	}
	tiles := ceilDiv(fw, 512) * ceilDiv(fh, 512)
	return imageBase + imageTile*tiles
}

func ceilDiv(x, d float64) int {
	n := int(x / d)
	if float64(n)*d < x {
		n++
	}
	return n
}

// dataURLSize reads the size of the image in a base64 data: URL from its
// header, without decoding the pixels.
func dataURLSize(url string) (w, h int, ok bool) {
	rest, found := strings.CutPrefix(url, "data:")
	if !found {
		return 0, 0, false
	}
	meta, data, found := strings.Cut(rest, ",")
	if !found || !strings.HasSuffix(meta, ";base64") {
		return 0, 0, false
	}
	return imageSize(data)
}
