package chat

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/swcmem/swc/tokens"
)

// pngBase64 returns a w×h PNG, base64.
func pngBase64(t *testing.T, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// TestAnthropicImageTokens checks the rule by hand-worked sizes.
func TestAnthropicImageTokens(t *testing.T) {
	for _, tc := range []struct{ w, h, want int }{
		{200, 100, 27},     // 20,000 / 750 = 26.7
		{1000, 1000, 1334}, // 1,000,000 / 750 = 1,333.3
		{1568, 500, 1046},  // at the edge: 784,000 / 750 = 1,045.3
		{3136, 1000, 1046}, // halved to 1568 × 500
		{2000, 1000, 1534}, // 1568 × 784 = 1.23 MP, then to 1.15 MP: 1,533.3
		{0, 10, anthropicImageMax},
	} {
		if got := anthropicImageTokens(tc.w, tc.h); got != tc.want {
			t.Errorf("%d×%d: %d tokens, want %d", tc.w, tc.h, got, tc.want)
		}
	}
}

// TestMediaTokens: what a message's placeholders stand for is counted in
// its MediaTokens, by the fast parser and the general one alike: an
// Anthropic image by its size (in a message or in a tool_result), one
// swc cannot size at the most, a thinking block by its text, a redacted
// one by its data; a Chat Completions image_url by the tile rule.
func TestMediaTokens(t *testing.T) {
	small, wide := pngBase64(t, 200, 100), pngBase64(t, 1024, 768)
	thinking := "The failing test is in parse_test.go; read it before editing parse.go."
	for _, tc := range []struct {
		name string
		body string
		f    Format
		want []int // per message
	}{
		{"anthropic image", `{"messages":[{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + small + `"}}]}]}`,
			Anthropic, []int{27}},
		{"anthropic image, spaced, escaped, fields in another order", `{"messages":[{"role":"user","content":[ { "source" : { "data" : "` + strings.ReplaceAll(small, "/", `\/`) + `" , "media_type":"image/png", "type" : "base64" } , "type" : "image" } ]}]}`,
			Anthropic, []int{27}},
		{"anthropic image by url", `{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]}]}`,
			Anthropic, []int{anthropicImageMax}},
		{"anthropic thinking and a screenshot result", `{"messages":[{"role":"user","content":"fix it"},` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"` + thinking + `","signature":"c2ln"},{"type":"redacted_thinking","data":"` + fmt.Sprintf("%040d", 0) + `"},{"type":"tool_use","id":"t1","name":"shot","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + small + `"}}]}]}]}`,
			Anthropic, []int{0, tokens.Count(thinking) + 10, 27}},
		{"anthropic blocks with a content list they do not hold (a thinking, a text)", `{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","signature":"c2ln","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + small + `"}}]},{"type":"text","text":"ok","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + small + `"}}]}]}]}`,
			Anthropic, []int{0, 0}},
		{"openai image_url", `{"messages":[{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,` + wide + `"}}]},` +
			`{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"low"}}]},` +
			`{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}]}`,
			OpenAI, []int{765, 85, 765}},
	} {
		fast := parseFast([]byte(tc.body), tc.f, false)
		general, err := parseGeneral([]byte(tc.body), tc.f, reading{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, p := range []struct {
			name string
			in   *Input
		}{{"fast", fast}, {"general", general}} {
			if p.in == nil {
				t.Errorf("%s: the %s parser read nothing", tc.name, p.name)
				continue
			}
			var got []int
			for _, m := range p.in.Messages {
				got = append(got, m.MediaTokens)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("%s (%s): media tokens %v, want %v", tc.name, p.name, got, tc.want)
			}
		}
	}
}

// BenchmarkParseMedia parses a Claude Code-like body: LoCoMo's first
// conversation as user text, every assistant turn opening with a
// thinking block of its own words, every tenth user turn with a
// 1024×768 screenshot; beside the same body without them, to read what
// counting their tokens costs.
func BenchmarkParseMedia(b *testing.B) {
	msgs := FromConversation(loadLoCoMo(b)[0])
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1024, 768))); err != nil {
		b.Fatal(err)
	}
	shot := base64.StdEncoding.EncodeToString(buf.Bytes())
	var with, without []string
	for i, m := range msgs {
		text, _ := json.Marshal(m.Content)
		plain := fmt.Sprintf(`{"role":%q,"content":[{"type":"text","text":%s}]}`, m.Role, text)
		without = append(without, plain)
		switch {
		case m.Role == "assistant":
			plain = fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":%s,"signature":"c2ln"},{"type":"text","text":%s}]}`, text, text)
		case i%10 == 0:
			plain = fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":%s},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}}]}`, text, shot)
		}
		with = append(with, plain)
	}
	for _, tc := range []struct {
		name string
		msgs []string
	}{{"plain", without}, {"media", with}} {
		body := []byte(`{"model":"m","max_tokens":1,"messages":[` + strings.Join(tc.msgs, ",") + `]}`)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := Parse(body, Anthropic); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkImageBlock counts an Anthropic image block of a 1024×768
// screenshot of noise (a PNG of about 1 MB of base64) the first time (its
// size read from its header, the block read in place, not copied) and
// again (from the cache, by a hash of the block).
func BenchmarkImageBlock(b *testing.B) {
	img := image.NewGray(image.Rect(0, 0, 1024, 768))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.Uint32())
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		b.Fatal(err)
	}
	raw := []byte(`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + base64.StdEncoding.EncodeToString(buf.Bytes()) + `"}}`)
	for _, again := range []bool{false, true} {
		name := map[bool]string{false: "first", true: "again"}[again]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if !again {
					mediaCache = newCounts(4096) // forget what was counted
				}
				if anthropicBlockTokens("image", raw) != 1049 {
					b.Fatal("not 1,049 tokens")
				}
			}
		})
	}
}
