package chat

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"hash/maphash"
	"math"
	"strconv"
	"strings"
)

// What audio and video count where a Gemini request holds them inline:
// Gemini reads audio at geminiAudioRate tokens a second, video a frame a
// second (or videoMetadata.fps) at a frame's tokens plus its sound. The
// length comes from the file's container (mediaSeconds); one swc cannot
// read is taken for a low bitrate, so that its length is rather over
// than under: audio at audioBytesPerSecond (64 kbit/s), video at
// videoBytesPerSecond (500 kbit/s). Raw PCM, which has no container, is
// its size at its rate (pcmBytesPerSecond).
const (
	geminiAudioRate     = 32
	audioBytesPerSecond = 8000
	videoBytesPerSecond = 62500
)

// mediaLength returns the seconds of the audio or video whose standard
// base64 is data: its container's, else its size at the fallback rate
// for video (or audio when video is false). It is kept by a hash of data
// when data is large (cachedCount's memo, in milliseconds).
func mediaLength(data string, video bool) float64 {
	count := func() int {
		b := newB64(data)
		if s, ok := mediaSeconds(b); ok {
			return int(math.Ceil(s * 1000))
		}
		rate := audioBytesPerSecond
		if video {
			rate = videoBytesPerSecond
		}
		return int(math.Ceil(float64(b.n) * 1000 / float64(rate)))
	}
	if len(data) < mediaCacheMin {
		return float64(count()) / 1000
	}
	key := maphash.String(mediaSeed, data) ^ 0x5bd1e995 // not an image's or a PDF's count of the same bytes
	if ms, ok := mediaCache.Get(key); ok {
		return float64(ms) / 1000
	}
	ms := count()
	mediaCache.Put(key, ms)
	return float64(ms) / 1000
}

// pcmBytesPerSecond returns the bytes a second of raw 16-bit PCM audio
// whose MIME type is mt ("audio/l16;rate=24000", "audio/pcm;rate=16000",
// what Gemini's Live API and its text-to-speech speak): 2 × its rate ×
// its channels (one unless a channels parameter says more). Such audio has
// no header to read its length from. A type without a rate is taken at
// 16 kHz, the rate Gemini reads audio at; one whose rate cannot be read
// (not a number from 1,000 to 768,000) at 8 kHz, so that its length comes
// out over rather than under. Parameters are read leniently (any case,
// spaces, quotes; the first of a name counts). ok is false for any other
// type.
func pcmBytesPerSecond(mt string) (bps int, ok bool) {
	parts := strings.Split(mt, ";")
	switch strings.ToLower(strings.TrimSpace(parts[0])) {
	case "audio/l16", "audio/pcm", "audio/x-l16", "audio/x-pcm":
	default:
		return 0, false
	}
	params := map[string]string{}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if _, seen := params[k]; !seen && k != "" {
			params[k] = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	rate, channels := 16000, 1
	if v, given := params["rate"]; given {
		rate = 8000
		if r, err := strconv.Atoi(v); err == nil && r >= 1000 && r <= 768000 {
			rate = r
		}
	}
	if c, err := strconv.Atoi(params["channels"]); err == nil && c >= 1 && c <= 32 {
		channels = c
	}
	return 2 * rate * channels, true
}

// pcmSeconds returns the length of raw PCM audio in standard or URL-safe
// base64 at bps bytes a second.
func pcmSeconds(data string, bps int) float64 {
	return float64(newB64(data).n) / float64(bps)
}

// b64 reads bytes at any offset of a base64 string, decoding only the
// characters that hold them.
type b64 struct {
	s   string
	n   int // decoded length
	enc *base64.Encoding
}

// newB64 reads s in the alphabet it is written in: standard, or URL-safe
// (what the Python SDK sends), padded or not.
func newB64(s string) b64 {
	s = strings.TrimRight(s, "\n\r ")
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	pad := strings.Count(s[max(0, len(s)-2):], "=")
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
		pad = 0
	}
	n := len(s)/4*3 - pad
	if r := len(s) % 4; r > 1 {
		n += r - 1
	}
	return b64{s: s, n: max(n, 0), enc: enc}
}

// at returns up to n bytes from offset off (fewer at the end; nil when
// off is out of range or the characters are not base64).
func (b b64) at(off, n int) []byte {
	if off < 0 || off >= b.n || n <= 0 {
		return nil
	}
	end := min(off+n, b.n)
	cs, ce := off/3*4, min(len(b.s), (end+2)/3*4)
	enc := b.enc.WithPadding(base64.NoPadding) // a slice, its padding trimmed
	chunk := strings.TrimRight(b.s[cs:ce], "=")
	out := make([]byte, enc.DecodedLen(len(chunk))+3)
	k, err := enc.Decode(out, []byte(chunk))
	if err != nil {
		return nil
	}
	lo := off % 3
	if lo >= k {
		return nil
	}
	return out[lo:min(k, lo+end-off)]
}

// mediaSeconds returns the length of the audio or video b holds, read
// from its container (WAV, AIFF, FLAC, MP3, MP4/MOV/M4A/3GP, Ogg,
// WebM/Matroska, AVI) without decoding the samples; false when swc cannot
// read one.
func mediaSeconds(b b64) (float64, bool) {
	head := b.at(0, 64)
	if len(head) < 12 {
		return 0, false
	}
	var s float64
	var ok bool
	switch {
	case string(head[:4]) == "RIFF" && string(head[8:12]) == "WAVE":
		s, ok = wavSeconds(b)
	case string(head[:4]) == "RIFF" && string(head[8:12]) == "AVI ":
		s, ok = aviSeconds(b)
	case string(head[:4]) == "FORM" && (string(head[8:12]) == "AIFF" || string(head[8:12]) == "AIFC"):
		s, ok = aiffSeconds(b)
	case string(head[:4]) == "fLaC":
		s, ok = flacSeconds(b)
	case string(head[:4]) == "OggS":
		s, ok = oggSeconds(b)
	case string(head[4:8]) == "ftyp" || string(head[4:8]) == "moov" || string(head[4:8]) == "wide" || string(head[4:8]) == "mdat":
		s, ok = mp4Seconds(b)
	case string(head[:4]) == "\x1a\x45\xdf\xa3":
		s, ok = matroskaSeconds(b)
	case head[0] == 0xff && head[1]&0xf6 == 0xf0: // ADTS: MPEG sync, layer 00
		s, ok = adtsSeconds(b)
	case string(head[:3]) == "ID3" || head[0] == 0xff && head[1]&0xe0 == 0xe0 && head[1]&0x06 != 0:
		s, ok = mp3Seconds(b)
	}
	if !ok || math.IsNaN(s) || s <= 0 || s > 1e7 {
		return 0, false
	}
	return s, true
}

// riffChunks calls f with each chunk's id, data offset and size, from
// offset off to end, little-endian sizes (RIFF) or big-endian (AIFF);
// f returns false to stop.
func riffChunks(b b64, off, end int, big bool, f func(id string, at, size int) bool) {
	for range 256 {
		h := b.at(off, 8)
		if len(h) < 8 || off >= end {
			return
		}
		size := int(binary.LittleEndian.Uint32(h[4:]))
		if big {
			size = int(binary.BigEndian.Uint32(h[4:]))
		}
		if !f(string(h[:4]), off+8, size) {
			return
		}
		off += 8 + size + size&1
	}
}

func wavSeconds(b b64) (float64, bool) {
	rate, data := 0, -1
	riffChunks(b, 12, b.n, false, func(id string, at, size int) bool {
		switch id {
		case "fmt ":
			if f := b.at(at, 12); len(f) == 12 {
				rate = int(binary.LittleEndian.Uint32(f[8:]))
			}
		case "data":
			data = size
			if size == 0 || size == math.MaxUint32 || at+size > b.n {
				data = b.n - at // streamed: the rest of the file
			}
			return false
		}
		return true
	})
	if rate <= 0 || data < 0 {
		return 0, false
	}
	return float64(data) / float64(rate), true
}

func aviSeconds(b b64) (float64, bool) {
	var s float64
	ok := false
	riffChunks(b, 12, b.n, false, func(id string, at, size int) bool {
		if id != "LIST" || string(b.at(at, 4)) != "hdrl" {
			return true
		}
		riffChunks(b, at+4, at+size, false, func(id string, at, size int) bool {
			if id == "avih" {
				if h := b.at(at, 20); len(h) == 20 {
					us, frames := binary.LittleEndian.Uint32(h), binary.LittleEndian.Uint32(h[16:])
					s, ok = float64(us)*float64(frames)/1e6, true
				}
				return false
			}
			return true
		})
		return false
	})
	return s, ok
}

func aiffSeconds(b b64) (float64, bool) {
	var s float64
	ok := false
	riffChunks(b, 12, b.n, true, func(id string, at, size int) bool {
		if id != "COMM" {
			return true
		}
		if c := b.at(at, 18); len(c) == 18 {
			frames := binary.BigEndian.Uint32(c[2:])
			exp := int(binary.BigEndian.Uint16(c[8:]) & 0x7fff)
			mant := binary.BigEndian.Uint64(c[10:])
			rate := float64(mant) * math.Pow(2, float64(exp-16383-63))
			if rate > 0 {
				s, ok = float64(frames)/rate, true
			}
		}
		return false
	})
	return s, ok
}

func flacSeconds(b b64) (float64, bool) {
	// The first metadata block is STREAMINFO: its bytes 10–17 hold the
	// sample rate (20 bits) and the total samples (36 bits).
	si := b.at(8, 18)
	if len(si) < 18 || b.at(4, 1)[0]&0x7f != 0 {
		return 0, false
	}
	rate := int(si[10])<<12 | int(si[11])<<4 | int(si[12])>>4
	total := uint64(si[13]&0x0f)<<32 | uint64(binary.BigEndian.Uint32(si[14:]))
	if rate <= 0 || total == 0 {
		return 0, false
	}
	return float64(total) / float64(rate), true
}

func oggSeconds(b b64) (float64, bool) {
	// The first page's packet names the codec and its rate; the last
	// page's granule position is the samples up to its end.
	first := b.at(0, 256)
	if len(first) < 28 {
		return 0, false
	}
	serial := binary.LittleEndian.Uint32(first[14:])
	segs := int(first[26])
	payload := first[min(len(first), 27+segs):]
	var rate float64
	skip := uint64(0)
	switch {
	case bytes.HasPrefix(payload, []byte("\x01vorbis")) && len(payload) >= 16:
		rate = float64(binary.LittleEndian.Uint32(payload[12:]))
	case bytes.HasPrefix(payload, []byte("OpusHead")) && len(payload) >= 12:
		rate, skip = 48000, uint64(binary.LittleEndian.Uint16(payload[10:]))
	case bytes.HasPrefix(payload, []byte("\x7fFLAC")) && len(payload) >= 30:
		si := payload[13+4:]
		rate = float64(int(si[10])<<12 | int(si[11])<<4 | int(si[12])>>4)
	default:
		return 0, false
	}
	const tail = 65536
	start := max(0, b.n-tail)
	t := b.at(start, tail)
	for i := len(t) - 27; i >= 0; i-- {
		if t[i] != 'O' || string(t[i:i+4]) != "OggS" || binary.LittleEndian.Uint32(t[i+14:]) != serial {
			continue
		}
		g := binary.LittleEndian.Uint64(t[i+6:])
		if g == math.MaxUint64 || rate <= 0 {
			continue
		}
		return float64(g-min(g, skip)) / rate, true
	}
	return 0, false
}

// mp4Seconds reads the movie header (moov/mvhd) of an ISO base media
// file (MP4, MOV, M4A, 3GP), wherever moov is.
func mp4Seconds(b b64) (float64, bool) {
	box := func(off, end int, want string) (int, int, bool) { // the data offset and end of the first box want
		for range 4096 {
			h := b.at(off, 16)
			if len(h) < 8 || off >= end {
				return 0, 0, false
			}
			size, hdr := int(binary.BigEndian.Uint32(h)), 8
			switch {
			case size == 1 && len(h) == 16:
				size, hdr = int(binary.BigEndian.Uint64(h[8:])), 16
			case size == 0:
				size = end - off
			}
			if size < hdr {
				return 0, 0, false
			}
			if string(h[4:8]) == want {
				return off + hdr, min(end, off+size), true
			}
			off += size
		}
		return 0, 0, false
	}
	at, end, ok := box(0, b.n, "moov")
	if !ok {
		return 0, false
	}
	at, _, ok = box(at, end, "mvhd")
	if !ok {
		return 0, false
	}
	h := b.at(at, 32)
	if len(h) < 20 {
		return 0, false
	}
	var scale, dur uint64
	if h[0] == 1 && len(h) >= 32 {
		scale, dur = uint64(binary.BigEndian.Uint32(h[20:])), binary.BigEndian.Uint64(h[24:])
	} else {
		scale, dur = uint64(binary.BigEndian.Uint32(h[12:])), uint64(binary.BigEndian.Uint32(h[16:]))
	}
	if scale == 0 || dur == math.MaxUint32 || dur == math.MaxUint64 {
		return 0, false
	}
	return float64(dur) / float64(scale), true
}

// matroskaSeconds reads Segment/Info's Duration (in TimecodeScale
// nanoseconds) of a WebM or Matroska file.
func matroskaSeconds(b b64) (float64, bool) {
	head := b.at(0, 1<<16)
	vint := func(p []byte, keep bool) (v uint64, n int) {
		if len(p) == 0 || p[0] == 0 {
			return 0, 0
		}
		n = 1
		for mask := byte(0x80); p[0]&mask == 0; mask >>= 1 {
			n++
		}
		if n > 8 || len(p) < n {
			return 0, 0
		}
		v = uint64(p[0])
		if !keep {
			v &= uint64(0xff >> n)
		}
		for _, c := range p[1:n] {
			v = v<<8 | uint64(c)
		}
		return v, n
	}
	// elements walks p's elements, calling f with each id and data.
	elements := func(p []byte, f func(id uint64, data []byte) bool) {
		for len(p) > 0 {
			id, a := vint(p, true)
			size, c := vint(p[a:], false)
			if a == 0 || c == 0 {
				return
			}
			p = p[a+c:]
			if size > uint64(len(p)) { // unknown or past what was read: the rest
				size = uint64(len(p))
			}
			if !f(id, p[:size]) {
				return
			}
			p = p[size:]
		}
	}
	scale, dur := float64(1e6), -1.0
	elements(head, func(id uint64, data []byte) bool {
		if id != 0x18538067 { // Segment
			return true
		}
		elements(data, func(id uint64, data []byte) bool {
			if id != 0x1549a966 { // Info
				return true
			}
			elements(data, func(id uint64, data []byte) bool {
				switch {
				case id == 0x2ad7b1 && len(data) <= 8: // TimecodeScale
					var v uint64
					for _, c := range data {
						v = v<<8 | uint64(c)
					}
					scale = float64(v)
				case id == 0x4489 && len(data) == 4: // Duration
					dur = float64(math.Float32frombits(binary.BigEndian.Uint32(data)))
				case id == 0x4489 && len(data) == 8:
					dur = math.Float64frombits(binary.BigEndian.Uint64(data))
				}
				return true
			})
			return false
		})
		return false
	})
	if dur <= 0 {
		return 0, false
	}
	return dur * scale / 1e9, true
}

// mp3Seconds reads an MPEG audio stream's length: its first frame's
// Xing/Info or VBRI frame count, else its size at the first frame's
// bitrate (constant bitrate).
func mp3Seconds(b b64) (float64, bool) {
	off := 0
	if h := b.at(0, 10); len(h) == 10 && string(h[:3]) == "ID3" {
		// The tag's size (syncsafe) leaves out its 10-byte header and its
		// footer, when the flags say it has one.
		off = 10 + (int(h[6]&0x7f)<<21 | int(h[7]&0x7f)<<14 | int(h[8]&0x7f)<<7 | int(h[9]&0x7f))
		if h[5]&0x10 != 0 {
			off += 10
		}
	}
	p := b.at(off, 4096)
	i := 0
	for ; i+4 <= len(p); i++ {
		if p[i] == 0xff && p[i+1]&0xe0 == 0xe0 && p[i+1]&0x06 != 0 && p[i+2]&0xf0 != 0xf0 && p[i+2]&0x0c != 0x0c {
			break
		}
	}
	if i+4 > len(p) {
		return 0, false
	}
	h := p[i:]
	version := (h[1] >> 3) & 3 // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
	layer := 4 - int((h[1]>>1)&3)
	rates := [3]int{44100, 48000, 32000}
	rate := rates[(h[2]>>2)&3]
	mpeg1 := version == 3
	switch version {
	case 2:
		rate /= 2
	case 0:
		rate /= 4
	}
	spf := 1152
	switch {
	case layer == 1:
		spf = 384
	case layer == 3 && !mpeg1:
		spf = 576
	}
	mono := (h[3] >> 6) == 3
	side := 32
	switch {
	case mpeg1 && mono:
		side = 17
	case !mpeg1 && !mono:
		side = 17
	case !mpeg1:
		side = 9
	}
	frames := 0
	if x := h[min(len(h), 4+side):]; len(x) >= 12 && (string(x[:4]) == "Xing" || string(x[:4]) == "Info") && x[7]&1 != 0 {
		frames = int(binary.BigEndian.Uint32(x[8:]))
	} else if v := h[min(len(h), 36):]; len(v) >= 18 && string(v[:4]) == "VBRI" {
		frames = int(binary.BigEndian.Uint32(v[14:]))
	}
	if frames > 0 {
		return float64(frames) * float64(spf) / float64(rate), true
	}
	kbps := mp3Bitrate(mpeg1, layer, int(h[2]>>4))
	if kbps <= 0 {
		return 0, false
	}
	// A constant bitrate: the next frame's header must follow this frame,
	// or the bytes were no MPEG audio.
	size := 144 * kbps * 1000 / rate
	switch {
	case layer == 1:
		size = (12*kbps*1000/rate + int(h[2]>>1&1)) * 4
	case layer == 3 && !mpeg1:
		size = 72*kbps*1000/rate + int(h[2]>>1&1)
	default:
		size += int(h[2] >> 1 & 1)
	}
	if next := b.at(off+i+size, 2); off+i+size < b.n && (len(next) < 2 || next[0] != 0xff || next[1]&0xfe != h[1]&0xfe) {
		return 0, false
	}
	return float64(b.n-off-i) * 8 / float64(kbps*1000), true
}

// adtsSeconds walks the frames of an AAC stream in ADTS (each header
// gives its frame's length and its raw blocks of 1,024 samples); past
// adtsMaxFrames frames the rest is taken at the same bytes a sample.
func adtsSeconds(b b64) (float64, bool) {
	rates := [...]int{96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350}
	off, samples, rate := 0, 0, 0
	for frames := 0; frames < adtsMaxFrames; frames++ {
		h := b.at(off, 7)
		if len(h) < 7 || h[0] != 0xff || h[1]&0xf6 != 0xf0 {
			break
		}
		idx := int(h[2]>>2) & 0x0f
		if idx >= len(rates) {
			return 0, false
		}
		if rate == 0 {
			rate = rates[idx]
		}
		length := int(h[3]&0x03)<<11 | int(h[4])<<3 | int(h[5])>>5
		if length < 7 {
			break
		}
		samples += (int(h[6]&0x03) + 1) * 1024
		off += length
		if frames == adtsMaxFrames-1 && off < b.n {
			samples = int(float64(samples) * float64(b.n) / float64(off))
		}
	}
	if rate == 0 || samples == 0 {
		return 0, false
	}
	return float64(samples) / float64(rate), true
}

const adtsMaxFrames = 100000

// mp3Bitrate returns the kbit/s of bitrate index idx.
func mp3Bitrate(mpeg1 bool, layer, idx int) int {
	tables := map[[2]int][15]int{
		{1, 1}: {0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
		{1, 2}: {0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
		{1, 3}: {0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
		{2, 1}: {0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
		{2, 2}: {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
	}
	v := 2
	if mpeg1 {
		v = 1
	} else if layer == 3 {
		layer = 2
	}
	t, ok := tables[[2]int{v, layer}]
	if !ok || idx <= 0 || idx >= 15 {
		return 0
	}
	return t[idx]
}
