package chat

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"math"
	"testing"
)

// Containers written as each format lays out its header, with a known
// length; the samples are zeros.

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func wavFile(rate, bytesPerSample, seconds int) []byte {
	data := make([]byte, rate*bytesPerSample*seconds)
	fmtc := cat(le32(1|1<<16), le32(uint32(rate)), le32(uint32(rate*bytesPerSample)), le32(uint32(bytesPerSample)|16<<16))
	body := cat([]byte("WAVE"), []byte("fmt "), le32(16), fmtc, []byte("LIST"), le32(4), []byte("INFO"), []byte("data"), le32(uint32(len(data))), data)
	return cat([]byte("RIFF"), le32(uint32(len(body))), body)
}

func aiffFile(rate, frames int) []byte {
	exp := 16383 + int(math.Floor(math.Log2(float64(rate))))
	mant := uint64(rate) << (63 - (exp - 16383))
	comm := cat([]byte{0, 1}, be32(uint32(frames)), []byte{0, 16}, binary.BigEndian.AppendUint16(nil, uint16(exp)), binary.BigEndian.AppendUint64(nil, mant))
	body := cat([]byte("AIFF"), []byte("COMM"), be32(uint32(len(comm))), comm, []byte("SSND"), be32(8), make([]byte, 8))
	return cat([]byte("FORM"), be32(uint32(len(body))), body)
}

func flacFile(rate int, total uint64) []byte {
	si := make([]byte, 34)
	si[10], si[11], si[12] = byte(rate>>12), byte(rate>>4), byte(rate<<4)|0x01
	si[13] = 0xf0 | byte(total>>32)
	binary.BigEndian.PutUint32(si[14:], uint32(total))
	return cat([]byte("fLaC"), []byte{0x80, 0, 0, 34}, si, make([]byte, 100))
}

func mp3CBR(seconds int) []byte {
	frame := cat([]byte{0xff, 0xfb, 0x90, 0x00}, make([]byte, 413)) // MPEG-1 layer III, 128 kbit/s, 44.1 kHz
	n := 128000 / 8 * seconds
	stream := bytes.Repeat(frame, n/len(frame)+1)[:n]
	id3 := cat([]byte("ID3"), []byte{4, 0, 0, 0, 0, 0, 20}, make([]byte, 20))
	return cat(id3, stream)
}

func mp3Xing(frames int) []byte {
	h := cat([]byte{0xff, 0xfb, 0x90, 0x00}, make([]byte, 32), []byte("Xing"), be32(1), be32(uint32(frames)), make([]byte, 400))
	return cat(h, bytes.Repeat(cat([]byte{0xff, 0xfb, 0x90, 0x00}, make([]byte, 413)), 3))
}

func mp4File(scale, dur uint32, version1 bool) []byte {
	box := func(typ string, data ...[]byte) []byte {
		d := cat(data...)
		return cat(be32(uint32(8+len(d))), []byte(typ), d)
	}
	mvhd := cat([]byte{0, 0, 0, 0}, be32(0), be32(0), be32(scale), be32(dur), make([]byte, 80))
	if version1 {
		mvhd = cat([]byte{1, 0, 0, 0}, make([]byte, 16), be32(scale), binary.BigEndian.AppendUint64(nil, uint64(dur)), make([]byte, 80))
	}
	return cat(box("ftyp", []byte("isom"), be32(0x200), []byte("isom")), box("mdat", make([]byte, 5000)), box("moov", box("mvhd", mvhd), box("trak", make([]byte, 40))))
}

func oggPage(typ byte, granule uint64, serial uint32, payload []byte) []byte {
	h := cat([]byte("OggS"), []byte{0, typ}, binary.LittleEndian.AppendUint64(nil, granule), le32(serial), le32(0), le32(0), []byte{1, byte(len(payload))})
	return cat(h, payload)
}

func opusFile(seconds int) []byte {
	head := cat([]byte("OpusHead"), []byte{1, 2}, binary.LittleEndian.AppendUint16(nil, 312), le32(48000), []byte{0, 0, 0})
	return cat(oggPage(2, 0, 7, head), oggPage(0, 0, 7, make([]byte, 200)), oggPage(4, uint64(48000*seconds+312), 7, make([]byte, 100)), oggPage(4, 99999999, 8, make([]byte, 10)))
}

func vorbisFile(rate, seconds int) []byte {
	head := cat([]byte("\x01vorbis"), le32(0), []byte{2}, le32(uint32(rate)), make([]byte, 14))
	return cat(oggPage(2, 0, 3, head), oggPage(4, uint64(rate*seconds), 3, make([]byte, 100)))
}

func webmFile(seconds float64) []byte {
	ebml := cat([]byte{0x1a, 0x45, 0xdf, 0xa3, 0x84}, []byte("webm"))
	info := cat([]byte{0x2a, 0xd7, 0xb1, 0x83, 0x0f, 0x42, 0x40}, []byte{0x44, 0x89, 0x88}, binary.BigEndian.AppendUint64(nil, math.Float64bits(seconds*1000)))
	seek := cat([]byte{0x11, 0x4d, 0x9b, 0x74, 0x82}, []byte{0, 0})
	segment := cat(seek, []byte{0x15, 0x49, 0xa9, 0x66, 0x80 | byte(len(info))}, info, make([]byte, 300))
	return cat(ebml, []byte{0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, segment)
}

func aviFile(usPerFrame, frames uint32) []byte {
	avih := cat(le32(usPerFrame), le32(0), le32(0), le32(0), le32(frames), make([]byte, 36))
	hdrl := cat([]byte("hdrl"), []byte("avih"), le32(uint32(len(avih))), avih)
	body := cat([]byte("AVI "), []byte("LIST"), le32(uint32(len(hdrl))), hdrl, []byte("LIST"), le32(4), []byte("movi"))
	return cat([]byte("RIFF"), le32(uint32(len(body))), body)
}

func adtsFile(rateIdx, frames int) []byte {
	var b []byte
	for i := range frames {
		length := 7 + 100 + i%50
		h := []byte{0xff, 0xf1, byte(1<<6 | rateIdx<<2), byte(2<<6 | length>>11), byte(length >> 3), byte(length<<5 | 0x1f), 0xfc}
		b = append(append(b, h...), make([]byte, length-7)...)
	}
	return b
}

func TestMediaSeconds(t *testing.T) {
	for _, tc := range []struct {
		name string
		file []byte
		want float64
		ok   bool
	}{
		{"wav", wavFile(8000, 2, 3), 3, true},
		{"aiff", aiffFile(44100, 88200), 2, true},
		{"flac", flacFile(48000, 48000*5), 5, true},
		{"mp3, constant bitrate, after an ID3 tag", mp3CBR(4), 4, true},
		{"mp3, Xing frame count", mp3Xing(100), 100 * 1152.0 / 44100, true},
		{"mp4, moov after mdat", mp4File(1000, 7500, false), 7.5, true},
		{"mov, version 1 header", mp4File(600, 6000, true), 10, true},
		{"ogg opus, pre-skip left out, another stream's page ignored", opusFile(6), 6, true},
		{"ogg vorbis", vorbisFile(22050, 12), 12, true},
		{"webm", webmFile(9), 9, true},
		{"avi", aviFile(40000, 250), 10, true},
		{"aac (ADTS), not read as MP3", adtsFile(4, 431), 431 * 1024.0 / 44100, true},
		{"unknown bytes", make([]byte, 5000), 0, false},
		{"a truncated mp4", mp4File(1000, 7500, false)[:100], 0, false},
	} {
		// Any alphabet and padding an SDK sends: the Python SDK's is
		// URL-safe.
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			got, ok := mediaSeconds(newB64(enc.EncodeToString(tc.file)))
			if ok != tc.ok || math.Abs(got-tc.want) > 0.01 {
				t.Errorf("%s: %.3f s, %v; want %.3f s, %v", tc.name, got, ok, tc.want, tc.ok)
			}
		}
	}
}

// TestB64At: bytes at any offset, any length, decoded from their
// characters alone, equal the whole decoding's.
func TestB64At(t *testing.T) {
	raw := make([]byte, 1000)
	for i := range raw {
		raw[i] = byte(i * 7)
	}
	for _, n := range []int{998, 999, 1000} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			testB64At(t, newB64(enc.EncodeToString(raw[:n])), raw[:n])
		}
	}
}

func testB64At(t *testing.T, b b64, raw []byte) {
	t.Helper()
	n := len(raw)
	if b.n != n {
		t.Fatalf("%q…: length %d, want %d", b.s[:8], b.n, n)
	}
	for off := 0; off < n; off += 37 {
		for _, k := range []int{1, 2, 3, 4, 64, 2000} {
			want := raw[off:min(n, off+k)]
			if got := b.at(off, k); !bytes.Equal(got, want) {
				t.Fatalf("n %d, at(%d, %d) = %x, want %x", n, off, k, got, want)
			}
		}
	}
	if b.at(n, 1) != nil || b.at(-1, 1) != nil {
		t.Errorf("out of range reads something")
	}
}

// TestGeminiAudioVideoTokens: inline audio counts 32 tokens a second of
// its length; video a frame a second (videoMetadata's fps, its offsets)
// at 70 tokens (Gemini 3; 280 at high; 258 before Gemini 3, 66 at low)
// plus its sound; a file of unknown shape its size at a low bitrate; a
// file URI nothing.
func TestGeminiAudioVideoTokens(t *testing.T) {
	part := func(mime string, file []byte, extra string) string {
		return `{"inlineData":{"mimeType":"` + mime + `","data":"` + base64.StdEncoding.EncodeToString(file) + `"}` + extra + `}`
	}
	mp4 := mp4File(1000, 7500, false) // 7.5 s: 8 frames, 240 tokens of sound
	for _, tc := range []struct {
		name, model, part, config string
		want                      int
	}{
		{"wav", "", part("audio/wav", wavFile(8000, 2, 3), ""), "", 96},
		{"mp3", "gemini-2.5-pro", part("audio/mpeg", mp3CBR(4), ""), "", 128},
		{"audio swc cannot read: its size at 64 kbit/s", "", part("audio/aac", make([]byte, 80000), ""), "", 320},
		{"raw PCM at 24 kHz: its size at its rate", "", part("audio/l16;rate=24000", make([]byte, 96000), ""), "", 64},
		{"raw PCM, stereo", "", part("audio/L16; rate=8000; channels=2", make([]byte, 32000), ""), "", 32},
		{"raw PCM without a rate: 16 kHz", "", part("audio/pcm", make([]byte, 96000), ""), "", 96},
		{"raw PCM, its type in capitals, a rate among odd parameters", "", part("Audio/PCM; foo; RATE = 24000; rate=8000", make([]byte, 96000), ""), "", 64},
		{"raw PCM whose rate cannot be read: 8 kHz, over rather than under", "", part("audio/l16;rate=24kHz", make([]byte, 32000), ""), "", 64},
		{"mp4, Gemini 3", "gemini-3-flash-preview", part("video/mp4", mp4, ""), "", 8*70 + 240},
		{"mp4, Gemini 3 at high", "", part("video/mp4", mp4, ""), `,"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_HIGH"}`, 8*280 + 240},
		{"mp4, Gemini 2.5", "gemini-2.5-flash", part("video/mp4", mp4, ""), "", 8*258 + 240},
		{"mp4, Gemini 2.5 at low", "gemini-2.5-flash", part("video/mp4", mp4, ""), `,"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_LOW"}`, 8*66 + 240},
		{"mp4 at 2 fps from 2.5 s", "", part("video/mp4", mp4, `,"videoMetadata":{"fps":2,"startOffset":"2.5s"}`), "", 10*70 + 160},
		{"mp4 up to 3 s, snake case", "", part("video/mp4", mp4, `,"video_metadata":{"end_offset":"3s"}`), "", 3*70 + 96},
		{"a video's URI", "", `{"fileData":{"mimeType":"video/mp4","fileUri":"files/abc"}}`, "", 0},
	} {
		body := `{"contents":[{"role":"user","parts":[{"text":"what is it?"},` + tc.part + `]}]` + tc.config + `}`
		in, err := ParseOwnedModel([]byte(body), Gemini, tc.model)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := in.Messages[0].MediaTokens; got != tc.want {
			t.Errorf("%s: %d tokens, want %d", tc.name, got, tc.want)
		}
	}
	// The same in an interaction.
	body := `{"model":"gemini-3-flash-preview","input":[{"type":"audio","mime_type":"audio/wav","data":"` + base64.StdEncoding.EncodeToString(wavFile(8000, 2, 3)) + `"}]}`
	in, err := Parse([]byte(body), Interactions)
	if err != nil || in.Messages[0].MediaTokens != 96 {
		t.Errorf("interaction audio: %v, %d tokens, want 96", err, in.Messages[0].MediaTokens)
	}
}

// FuzzMediaSeconds: any bytes give a length or none, never a panic, a
// hang or a length below zero.
func FuzzMediaSeconds(f *testing.F) {
	for _, b := range [][]byte{wavFile(8000, 2, 1), aiffFile(8000, 100), flacFile(8000, 800), mp3CBR(1), mp3Xing(3),
		mp4File(1000, 500, false), mp4File(1000, 500, true), opusFile(1), vorbisFile(8000, 1), webmFile(1), aviFile(1000, 10)} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		if s, ok := mediaSeconds(newB64(base64.StdEncoding.EncodeToString(file))); ok && !(s > 0) {
			t.Fatalf("length %v", s)
		}
	})
}

// TestGeminiFileLengths: audio and video named by URI count by the length
// FileLengths tells (what the Files API said of them), as the same bytes
// inline would; a URI it does not know, or no FileLengths, counts nothing.
func TestGeminiFileLengths(t *testing.T) {
	files := func(uri string) (MediaFile, bool) {
		f, ok := map[string]MediaFile{"https://generativelanguage.googleapis.com/v1beta/files/vid": {7.5, "video/mp4"}, "files/aud": {3, "audio/mpeg"}}[uri]
		return f, ok
	}
	for _, tc := range []struct {
		name, model, part string
		files             FileLengths
		want              int
	}{
		{"a video, Gemini 3", "", `{"fileData":{"mimeType":"video/mp4","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/vid"}}`, files, 8*70 + 240},
		{"a video, Gemini 2.5 at 2 fps", "gemini-2.5-flash", `{"file_data":{"mime_type":"video/mp4","file_uri":"https://generativelanguage.googleapis.com/v1beta/files/vid"},"videoMetadata":{"fps":2}}`, files, 15*258 + 240},
		{"audio", "", `{"fileData":{"mimeType":"audio/mpeg","fileUri":"files/aud"}}`, files, 96},
		{"a URI not known", "", `{"fileData":{"mimeType":"video/mp4","fileUri":"files/other"}}`, files, 0},
		{"a part without a MIME type: the file's", "", `{"fileData":{"fileUri":"https://generativelanguage.googleapis.com/v1beta/files/vid"}}`, files, 8*70 + 240},
		{"no lengths", "", `{"fileData":{"mimeType":"video/mp4","fileUri":"files/aud"}}`, nil, 0},
		{"an image by URI counts as before", "", `{"fileData":{"mimeType":"image/png","fileUri":"files/aud"}}`, files, geminiImageDefault},
	} {
		body := `{"contents":[{"role":"user","parts":[{"text":"what is it?"},` + tc.part + `]}]}`
		in, err := ParseOwnedFiles([]byte(body), Gemini, tc.model, tc.files)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := in.Messages[0].MediaTokens; got != tc.want {
			t.Errorf("%s: %d tokens, want %d", tc.name, got, tc.want)
		}
	}
	body := `{"model":"gemini-3-flash-preview","input":[{"type":"text","text":"and this?"},{"type":"video","mime_type":"video/mp4","uri":"https://generativelanguage.googleapis.com/v1beta/files/vid"}]}`
	for _, f := range []FileLengths{files, nil} {
		in, err := ParseOwnedFiles([]byte(body), Interactions, "", f)
		want := 8*70 + 240
		if f == nil {
			want = 0
		}
		if err != nil || in.Messages[0].MediaTokens != want {
			t.Errorf("an interaction's video by URI: %v, %d tokens, want %d", err, in.Messages[0].MediaTokens, want)
		}
	}
}
