package chat

import (
	"reflect"
	"strings"
	"testing"
)

// TestGeminiContentMemo: a content remembered from one request is read
// again in another as it would be without the memo — under another media
// resolution, another model generation, other file lengths, at another
// index (a call without an id gets its id from where it is) — and the
// same bytes read under different settings count their media differently.
func TestGeminiContentMemo(t *testing.T) {
	long := strings.Repeat("The toolbar overlaps the chart on narrow screens. ", 8)
	img := `{"inlineData":{"mimeType":"image/png","data":"iVBORw0K"}}`
	video := `{"fileData":{"mimeType":"video/mp4","fileUri":"files/clip"}}`
	user := `{"role":"user","parts":[{"text":"` + long + `"},` + img + `,` + video + `]}`
	call := `{"role":"model","parts":[{"text":"` + long + `"},{"functionCall":{"name":"read_file","args":{"path":"ui/toolbar.tsx"}}}]}`
	resp := `{"role":"user","parts":[{"functionResponse":{"name":"read_file","response":{"output":"` + long + `"}}}]}`
	bodies := map[string]string{
		"low":       `{"contents":[` + user + `,` + call + `,` + resp + `],"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_LOW"}}`,
		"high":      `{"contents":[` + user + `,` + call + `,` + resp + `],"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_HIGH"}}`,
		"moved":     `{"contents":[{"role":"user","parts":[{"text":"Look."}]},` + user + `,` + call + `,` + resp + `]}`,
		"no config": `{"contents":[` + user + `,` + call + `,` + resp + `]}`,
	}
	long7 := func(string) (MediaFile, bool) { return MediaFile{7.5, "video/mp4"}, true }
	short3 := func(string) (MediaFile, bool) { return MediaFile{3, "video/mp4"}, true }
	type setting struct {
		body, model string
		files       FileLengths
	}
	settings := []setting{
		{"low", "", nil}, {"high", "", nil}, {"no config", "", nil}, {"no config", "gemini-2.5-pro", nil},
		{"no config", "", long7}, {"no config", "", short3}, {"moved", "", nil},
	}
	parse := func(s setting, memo bool) *Input {
		t.Helper()
		defer func(m bool) { memoItems = m }(memoItems)
		memoItems = memo
		in, err := ParseOwnedFiles([]byte(bodies[s.body]), Gemini, s.model, s.files)
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		return in
	}
	media := map[int]bool{}
	for _, s := range settings {
		want := parse(s, false)
		for range 2 { // the second time from the memo
			if got := parse(s, true); !reflect.DeepEqual(got.Messages, want.Messages) || !reflect.DeepEqual(got.Where, want.Where) {
				t.Errorf("%s, model %q, files %v: with the memo\n%+v\nwithout\n%+v", s.body, s.model, s.files != nil, got.Messages, want.Messages)
			}
		}
		k := 0
		if s.body == "moved" {
			k = 1
			if id := want.Messages[2].ToolCalls[0].ID; id != geminiSyntheticID(2, 1) {
				t.Errorf("moved: the call's id %q, want %q", id, geminiSyntheticID(2, 1))
			}
		}
		media[want.Messages[k].MediaTokens] = true
	}
	if len(media) < 5 { // low, high, none × Gemini 3 and 2.5, two file lengths
		t.Errorf("the settings count the media alike (%v): the test sees no stale memo", media)
	}
}

// FuzzGeminiContentMemo: on anything, a Gemini body parsed with the
// content memo, twice, reads as it does without it: the same messages,
// the same places, the same error.
func FuzzGeminiContentMemo(f *testing.F) {
	f.Add(geminiCLIBody(2_000))
	long := strings.Repeat("a long line of a tool's output, ", 10)
	f.Add([]byte(`{"contents":[{"role":"model","parts":[{"text":"` + long + `"},{"functionCall":{"name":"ls","args":{}}}]},{"parts":[{"functionResponse":{"name":"ls","response":{"output":"` + long + `"}}}]}]}`))
	f.Add([]byte(`{"contents":[{"parts":[{"text":"` + long + `"},{"inlineData":{"mimeType":"image/png","data":"iVBORw0K"}}]}],"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_LOW"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func(m bool) { memoItems = m }(memoItems)
		memoItems = false
		want, wantErr := Parse(data, Gemini)
		memoItems = true
		for range 2 {
			got, err := Parse(data, Gemini)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("errors differ: %v, without the memo %v", err, wantErr)
			}
			if err == nil && (!reflect.DeepEqual(got.Messages, want.Messages) || !reflect.DeepEqual(got.Where, want.Where) || !reflect.DeepEqual(got.Raw, want.Raw)) {
				t.Fatalf("with the memo\n%+v\nwithout\n%+v", got.Messages, want.Messages)
			}
		}
	})
}
