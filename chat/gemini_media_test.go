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
		{"audio's tokens are its placeholder's", `{"contents":[{"parts":[{"inlineData":{"mimeType":"audio/mp3","data":"AAAA"},"mediaResolution":{"numTokens":100}}]}]}`, []int{0}},
		{"a PDF's pages at medium", `{"contents":[{"parts":[` + pdf + `]}]}`, []int{3 * 560}},
		{"a PDF's pages at the request's level", `{"contents":[{"parts":[` + pdf + `]}],"generationConfig":{"mediaResolution":"MEDIA_RESOLUTION_HIGH"}}`, []int{3 * 1120}},
		{"audio counts as its placeholder", `{"contents":[{"parts":[{"inlineData":{"mimeType":"audio/mp3","data":"AAAA"}}]}]}`, []int{0}},
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
