package chat

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// GeminiFilePath returns the path of the Files API's get of the file a
// URI names ("https://generativelanguage.googleapis.com/v1beta/files/abc-123"
// → "/v1beta/files/abc-123"), or "" for a URI that names no file of it (a
// YouTube video, a Cloud Storage object, a path with more after the id).
func GeminiFilePath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.RawQuery != "" || u.Fragment != "" {
		return ""
	}
	version, id, ok := strings.Cut(u.Path, "/files/")
	if !ok || !slices.Contains(geminiVersions, version) || id == "" || len(id) > 64 {
		return ""
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return ""
		}
	}
	return version + "/files/" + id
}

// geminiVersions are the Gemini API's version segments.
var geminiVersions = []string{"/v1beta", "/v1alpha", "/v1"}

// GeminiFiles returns the audio and video files a Gemini Files API answer
// describes, by URI, with their lengths in seconds: an upload's
// {"file":{…}}, a get's file object, a list's {"files":[…]}. A file
// object ({"name","uri","mimeType","sizeBytes","videoMetadata":
// {"videoDuration":"13.5s"},…}) gives a video's length once the API has
// processed it; before that, and for audio, whose length the API does not
// give, its size at a low rate for its kind, so that a long file counts
// long rather than short: 500 kbit/s for video and 64 kbit/s for
// compressed audio (the rates an inline file swc cannot read counts at),
// 256 kbit/s for WAV, AIFF and FLAC, raw PCM (audio/l16, audio/pcm) at
// its rate and channels. Other files (images, documents) and
// answers that are not JSON give nothing.
func GeminiFiles(body []byte) map[string]MediaFile {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return nil
	}
	var objs []json.RawMessage
	switch {
	case top["file"] != nil:
		objs = append(objs, top["file"])
	case top["files"] != nil:
		json.Unmarshal(top["files"], &objs)
	default:
		objs = append(objs, body)
	}
	out := map[string]MediaFile{}
	for _, o := range objs {
		if uri, f, ok := geminiFileLength(o); ok {
			out[uri] = f
		}
	}
	return out
}

// geminiFileLength reads one file object of the Files API.
func geminiFileLength(raw json.RawMessage) (uri string, file MediaFile, ok bool) {
	var f map[string]json.RawMessage
	if json.Unmarshal(raw, &f) != nil {
		return "", MediaFile{}, false
	}
	var mime, size string
	for name, to := range map[string]*string{"uri": &uri, "mimeType": &mime, "sizeBytes": &size} {
		if v, _ := GeminiField(f, name); v != nil {
			json.Unmarshal(v, to)
		}
	}
	n, _ := strconv.ParseInt(size, 10, 64)
	lower := strings.ToLower(mime)
	video := strings.HasPrefix(lower, "video/")
	if uri == "" || !video && !strings.HasPrefix(lower, "audio/") {
		return "", MediaFile{}, false
	}
	if v, _ := GeminiField(f, "videoMetadata"); video && v != nil {
		var vm map[string]json.RawMessage
		json.Unmarshal(v, &vm)
		var d string
		if dv, _ := GeminiField(vm, "videoDuration"); dv != nil {
			json.Unmarshal(dv, &d)
		}
		if s, ok := offsetSeconds(d); ok && s > 0 {
			return uri, MediaFile{s, mime}, true
		}
	}
	if n <= 0 {
		return "", MediaFile{}, false
	}
	rate, pcm := pcmBytesPerSecond(mime)
	switch {
	case video:
		rate = videoBytesPerSecond
	case pcm: // raw PCM: its length is its size at its rate
	case losslessAudio(mime):
		rate = losslessBytesPerSecond
	default:
		rate = audioBytesPerSecond
	}
	return uri, MediaFile{float64(n) / float64(rate), mime}, true
}

// losslessBytesPerSecond is the rate an uncompressed or lossless audio
// file of unknown length is taken at: 256 kbit/s, speech's 16 kHz 16-bit
// mono (CD audio is 1,411 kbit/s, so such a file counts long rather than
// 5 or 20 times long at the compressed rate).
const losslessBytesPerSecond = 32000

// losslessAudio reports whether mime names uncompressed or lossless audio.
func losslessAudio(mime string) bool {
	t, _, _ := strings.Cut(strings.ToLower(mime), ";")
	switch strings.TrimPrefix(strings.TrimSpace(t), "audio/") {
	case "wav", "x-wav", "wave", "vnd.wave", "aiff", "x-aiff", "aif", "flac", "x-flac":
		return true
	}
	return false
}
