package chat

import (
	"strings"
	"testing"
)

// TestGeminiMediaTokens checks what Gemini media count: an image by
// Gemini 3's resolution levels (the part's own, else generationConfig's,
// else high), whatever its size; a PDF a page at the level, else medium;
// media a tool returned in a functionResponse's parts, in its tool
// message.
func TestGeminiMediaTokens(t *testing.T) {
	png := `{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAgAAAAIACAIAAAB7GkOt"}}` // 512×512
	pdf3 := pdfBase64(t, 3, false, false)
	pdf := `{"inlineData":{"mimeType":"application/pdf","data":"` + pdf3 + `"}}`
	call := `{"role":"model","parts":[{"functionCall":{"name":"read_file","args":{"path":"a.png"},"id":"r1"}}]}`
	for _, tc := range []struct {
		name string
		body string
		want []int // each message's MediaTokens
	}{
		{"an image at no level counts high", `{"contents":[{"parts":[` + png + `]}]}`, []int{1120}},
		{"an image URI too", `{"contents":[{"parts":[{"fileData":{"mimeType":"image/jpeg","fileUri":"gs://b/x.jpg"}}]}]}`, []int{1120}},
		{"the request's level", `{"contents":[{"parts":[` + png + `]}],"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_LOW"}}`, []int{280}},
		{"snake case, lower case", `{"contents":[{"parts":[` + png + `]}],"generation_config":{"media_resolution":"media_resolution_medium"}}`, []int{560}},
		{"the part's level wins", `{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0K"},"mediaResolution":{"level":"MEDIA_RESOLUTION_ULTRA_HIGH"}}]}],"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_LOW"}}`, []int{2240}},
		{"the part's tokens", `{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0K"},"mediaResolution":{"numTokens":70}}]}]}`, []int{70}},
		{"an unknown level counts as none", `{"contents":[{"parts":[` + png + `]}],"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_UNSPECIFIED"}}`, []int{1120}},
		{"a part's unknown level leaves the request's", `{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0K"},"mediaResolution":{"level":"MEDIA_RESOLUTION_UNSPECIFIED"}}]}],"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_LOW"}}`, []int{280}},
		{"snake case at the part", `{"contents":[{"parts":[{"inline_data":{"mime_type":"image/png","data":"iVBORw0K"},"media_resolution":{"num_tokens":64}}]}]}`, []int{64}},
		{"a PDF's tokens a page", `{"contents":[{"parts":[{"inlineData":{"mimeType":"application/pdf","data":"` + pdf3 + `"},"mediaResolution":{"numTokens":100}}]}]}`, []int{300}},
		{"a part's tokens are not audio's", `{"contents":[{"parts":[{"inlineData":{"mimeType":"audio/mp3","data":"AAAA"},"mediaResolution":{"numTokens":100}}]}]}`, []int{1}},
		{"a PDF's pages at medium", `{"contents":[{"parts":[` + pdf + `]}]}`, []int{3 * 560}},
		{"a PDF's pages at the request's level", `{"contents":[{"parts":[` + pdf + `]}],"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_HIGH"}}`, []int{3 * 1120}},
		{"audio by its length (3 bytes at 64 kbit/s: TestGeminiAudioVideoTokens)", `{"contents":[{"parts":[{"inlineData":{"mimeType":"audio/mp3","data":"AAAA"}}]}]}`, []int{1}},
		{"an image in a functionResponse's parts", `{"contents":[{"parts":[{"text":"look"}]},` + call +
			`,{"role":"user","parts":[{"functionResponse":{"id":"r1","name":"read_file","response":{"output":"Binary content provided (1 item(s))."},"parts":[` + png + `]}}]}]}`,
			[]int{0, 0, 1120}},
		{"snake case function_response", `{"contents":[{"parts":[{"text":"look"}]},` + call +
			`,{"role":"user","parts":[{"function_response":{"id":"r1","name":"read_file","response":{},"parts":[{"inline_data":{"mime_type":"image/png","data":"iVBORw0K"}}]}}]}]}`,
			[]int{0, 0, 1120}},
		{"two of them, at the request's level", `{"contents":[{"parts":[{"text":"look"}]},` + call +
			`,{"role":"user","parts":[{"functionResponse":{"id":"r1","name":"read_file","response":{},"parts":[` + png + `,` + pdf + `]}}]}],"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_LOW"}}`,
			[]int{0, 0, 280 + 3*280}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := Parse([]byte(tc.body), Gemini)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, m := range in.Messages {
				got = append(got, m.MediaTokens)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("messages' media tokens %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("messages' media tokens %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestGeminiFunctionResponseParts checks a tool's media in a
// functionResponse's parts: placeholders after its output in the tool
// message, and a part that is not an object an error naming it.
func TestGeminiFunctionResponseParts(t *testing.T) {
	call := `{"role":"model","parts":[{"functionCall":{"name":"read_file","args":{},"id":"r1"}}]}`
	in, err := Parse([]byte(`{"contents":[{"parts":[{"text":"look"}]},`+call+
		`,{"role":"user","parts":[{"functionResponse":{"id":"r1","name":"read_file","response":{"output":"Binary content provided (1 item(s))."},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0K"}}]}}]}]}`), Gemini)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := in.Messages[2].Content, "Binary content provided (1 item(s)).\n[inlineData image/png]"; got != want {
		t.Errorf("tool message %q, want %q", got, want)
	}
	in, err = Parse([]byte(`{"contents":[{"parts":[{"text":"look"}]},`+call+
		`,{"role":"user","parts":[{"functionResponse":{"id":"r1","name":"read_file","response":{},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0K"}}]}}]}]}`), Gemini)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := in.Messages[2].Content, "{}\n[inlineData image/png]"; got != want {
		t.Errorf("tool message %q, want %q", got, want)
	}
	in, err = Parse([]byte(`{"contents":[{"parts":[{"text":"look"}]},`+call+
		`,{"role":"user","parts":[{"functionResponse":{"id":"r1","name":"read_file","response":{"output":"\nshot.png"},"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0K"}}]}}]}]}`), Gemini)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := in.Messages[2].Content, "\nshot.png\n[inlineData image/png]"; got != want {
		t.Errorf("tool message %q, want %q (its output as it came)", got, want)
	}
	_, err = Parse([]byte(`{"contents":[{"parts":[{"text":"look"}]},`+call+
		`,{"role":"user","parts":[{"functionResponse":{"id":"r1","name":"read_file","response":{},"parts":[7]}}]}]}`), Gemini)
	if err == nil || !strings.Contains(err.Error(), "contents[2].parts[0].functionResponse.parts[0]: want a part object") {
		t.Fatalf("err %v, want one naming the part", err)
	}
}

// TestGeminiMediaTokensByModel: a request to a Gemini model before 3
// (the model its URL names) counts an image by 768-pixel tiles, 258
// each (258 for one within 384 pixels; four tiles when its size cannot be
// read), 64 or 256 at a media resolution level, and a PDF's page 258; a
// Gemini 3 model, or none named, counts as TestGeminiMediaTokens; an
// Interactions body's own model counts the same way.
func TestGeminiMediaTokensByModel(t *testing.T) {
	img := func(w, h int) string {
		return `{"inlineData":{"mimeType":"image/png","data":"` + pngBase64(t, w, h) + `"}}`
	}
	pdf := `{"inlineData":{"mimeType":"application/pdf","data":"` + pdfBase64(t, 3, false, false) + `"}}`
	for _, tc := range []struct {
		name, model, parts, config string
		want                       int
	}{
		{"a 1080p screenshot, 2.5", "gemini-2.5-pro", img(1920, 1080), "", 6 * 258},
		{"a 4K screenshot, 2.5", "gemini-2.5-flash", img(3840, 2160), "", 15 * 258},
		{"a small icon, 2.0", "gemini-2.0-flash", img(256, 300), "", 258},
		{"just over 384, 1.5", "models/gemini-1.5-pro", img(385, 100), "", 258},
		{"a URI, 2.5", "gemini-2.5-pro", `{"fileData":{"mimeType":"image/jpeg","fileUri":"gs://b/x.jpg"}}`, "", 4 * 258},
		{"at low, 2.5", "gemini-2.5-pro", img(1920, 1080), `,"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_LOW"}`, 64},
		{"at medium, 2.5", "gemini-2.5-pro", img(1920, 1080), `,"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_MEDIUM"}`, 256},
		{"a PDF, 2.5", "gemini-2.5-pro", pdf, "", 3 * 258},
		{"a 4K screenshot, 3", "gemini-3-flash-preview", img(3840, 2160), "", 1120},
		{"a 4K screenshot, no model", "", img(3840, 2160), "", 1120},
		{"a PDF, 3", "gemini-3-pro-preview", pdf, "", 3 * 560},
	} {
		body := `{"contents":[{"role":"user","parts":[{"text":"look"},` + tc.parts + `]}]` + tc.config + `}`
		in, err := ParseOwnedModel([]byte(body), Gemini, tc.model)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := in.Messages[0].MediaTokens; got != tc.want {
			t.Errorf("%s: %d tokens, want %d", tc.name, got, tc.want)
		}
	}
	for model, want := range map[string]int{"gemini-2.5-flash": 6 * 258, "gemini-3-flash-preview": 1120} {
		body := `{"model":"` + model + `","input":[{"type":"text","text":"look"},{"type":"image","mime_type":"image/png","data":"` + pngBase64(t, 1920, 1080) + `"}]}`
		in, err := Parse([]byte(body), Interactions)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.Messages[0].MediaTokens; got != want {
			t.Errorf("interactions, %s: %d tokens, want %d", model, got, want)
		}
	}
}

func TestURLModel(t *testing.T) {
	for path, want := range map[string]string{
		"/v1beta/models/gemini-2.5-flash:generateContent":       "gemini-2.5-flash",
		"/v1/models/gemini-3-pro-preview:streamGenerateContent": "gemini-3-pro-preview",
		"/v1beta/models/gemini-2.5-flash":                       "",
		"/v1/chat/completions":                                  "",
		"/v1beta/tunedModels/x/models/y:generateContent":        "y",
	} {
		if got := URLModel(path); got != want {
			t.Errorf("URLModel(%q) = %q, want %q", path, got, want)
		}
	}
}
