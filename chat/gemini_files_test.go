package chat

import (
	"reflect"
	"strings"
	"testing"
)

// TestGeminiFiles reads the Files API's answers as its documentation
// shows them: an upload's, a get's once the video is processed, a list's.
func TestGeminiFiles(t *testing.T) {
	const vid = "https://generativelanguage.googleapis.com/v1beta/files/abc-123"
	for _, tc := range []struct {
		name, body string
		want       map[string]MediaFile
	}{
		{"an upload, still processing: its size at 500 kbit/s", `{"file":{"name":"files/abc-123","mimeType":"video/mp4","sizeBytes":"6250000","uri":"` + vid + `","state":"PROCESSING"}}`, map[string]MediaFile{vid: {100, "video/mp4"}}},
		{"a get once processed", `{"name":"files/abc-123","mimeType":"video/mp4","sizeBytes":"6250000","uri":"` + vid + `","state":"ACTIVE","videoMetadata":{"videoDuration":"13.5s"}}`, map[string]MediaFile{vid: {13.5, "video/mp4"}}},
		{"a list: audio at 64 kbit/s, an image left out", `{"files":[{"uri":"files/a","mimeType":"audio/mpeg","sizeBytes":"80000"},{"uri":"files/p","mimeType":"image/png","sizeBytes":"9000"}],"nextPageToken":"x"}`, map[string]MediaFile{"files/a": {10, "audio/mpeg"}}},
		{"a WAV at 256 kbit/s", `{"file":{"uri":"files/w","mimeType":"audio/wav","sizeBytes":"3200000"}}`, map[string]MediaFile{"files/w": {100, "audio/wav"}}},
		{"raw PCM at its rate", `{"file":{"uri":"files/r","mimeType":"audio/L16;rate=24000","sizeBytes":"480000"}}`, map[string]MediaFile{"files/r": {10, "audio/L16;rate=24000"}}},
		{"a type in capitals", `{"file":{"uri":"files/c","mimeType":"Video/MP4","sizeBytes":"6250000"}}`, map[string]MediaFile{"files/c": {100, "Video/MP4"}}},
		{"a WAV with a parameter is still lossless", `{"file":{"uri":"files/w","mimeType":"audio/wav; codecs=1","sizeBytes":"3200000"}}`, map[string]MediaFile{"files/w": {100, "audio/wav; codecs=1"}}},
		{"snake case", `{"file":{"uri":"files/v","mime_type":"video/webm","video_metadata":{"video_duration":"2s"}}}`, map[string]MediaFile{"files/v": {2, "video/webm"}}},
		{"no size and no duration", `{"uri":"files/v","mimeType":"video/mp4"}`, map[string]MediaFile{}},
		{"not JSON", `<html>`, nil},
	} {
		if got := GeminiFiles([]byte(tc.body)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestGeminiFilePath(t *testing.T) {
	for _, tc := range []struct{ uri, want string }{
		{"https://generativelanguage.googleapis.com/v1beta/files/abc-123", "/v1beta/files/abc-123"},
		{"https://generativelanguage.googleapis.com/v1/files/x9", "/v1/files/x9"},
		{"https://generativelanguage.googleapis.com/v1alpha/files/a_b", "/v1alpha/files/a_b"},
		{"http://127.0.0.1:8080/v1beta/files/up-0001", "/v1beta/files/up-0001"},
		{"https://www.youtube.com/watch?v=9hE5-98ZeCg", ""},
		{"gs://bucket/v1beta/files/a", ""},
		{"https://generativelanguage.googleapis.com/v1beta/files/ABC", ""},
		{"https://generativelanguage.googleapis.com/v1beta/files/a/b", ""},
		{"https://generativelanguage.googleapis.com/v1beta/files/", ""},
		{"https://generativelanguage.googleapis.com/v1beta/files/a?alt=media", ""},
		{"https://generativelanguage.googleapis.com/v2/files/a", ""},
		{"https://generativelanguage.googleapis.com/files/a", ""},
		{"https://generativelanguage.googleapis.com/v1beta/files/" + strings.Repeat("a", 65), ""},
		{"files/abc", ""},
		{"", ""},
		{"https://generativelanguage.googleapis.com/v1beta/files/é", ""},
	} {
		if got := GeminiFilePath(tc.uri); got != tc.want {
			t.Errorf("GeminiFilePath(%q) = %q, want %q", tc.uri, got, tc.want)
		}
	}
}
