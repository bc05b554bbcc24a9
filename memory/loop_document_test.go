package memory

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// TestLoopCountsDocuments: a PDF a tool read counts its pages (chat's
// document rule). Read early, it is an old observation like any other:
// stubbed, its call kept, at every budget. Read last, it is sent as it
// came and counted: a request over the budget only by it compresses the
// rest. Counted as its placeholder, the 4-page PDF read early was kept at
// 16,000 and sent 12,000 tokens over.
func TestLoopCountsDocuments(t *testing.T) {
	var pdf strings.Builder
	pdf.WriteString("%PDF-1.7\n")
	for i := range 4 {
		fmt.Fprintf(&pdf, "%d 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n", 3+i)
	}
	read := []string{`{"role":"assistant","content":[{"type":"tool_use","id":"p0","name":"Read","input":{"file_path":"/w/spec.pdf"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"p0","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` +
			base64.StdEncoding.EncodeToString([]byte(pdf.String())) + `"}}]}]}`}
	out := strings.Repeat("  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n", 60)
	var steps []string
	for k := range 20 {
		steps = append(steps,
			fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"I read part %d."},{"type":"tool_use","id":"t%d","name":"Read","input":{"offset":%d}}]}`, k, k, 100*k),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}`, k, out))
	}
	// Claude Code's form: the result names the file, the document is a
	// block beside it in the same user message.
	beside := []string{read[0], `{"role":"user","content":[{"type":"tool_result","tool_use_id":"p0","content":"PDF file read: /w/spec.pdf (1.2KB)"},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` +
		base64.StdEncoding.EncodeToString([]byte(pdf.String())) + `"}}]}`}
	task := `{"role":"user","content":"Implement the spec in spec.pdf."}`
	for _, tc := range []struct {
		name    string
		msgs    []string
		budgets []int
		kept    bool
	}{
		{"read early", append(append([]string{task}, read...), steps...), []int{8000, 16000, 32000}, false},
		{"read last", append(append([]string{task}, steps...), read...), []int{32000}, true},
		{"read early, beside its result", append(append([]string{task}, beside...), steps...), []int{8000, 16000, 32000}, false},
	} {
		body := []byte(`{"model":"m","max_tokens":64,"system":"You are a coding agent.","messages":[` + strings.Join(tc.msgs, ",") + `]}`)
		in, err := chat.Parse(body, chat.Anthropic)
		if err != nil {
			t.Fatal(err)
		}
		doc := 0
		for _, m := range in.Messages {
			doc += m.MediaTokens
		}
		if doc < 4*1000 {
			t.Fatalf("%s: the 4-page PDF counts %d tokens", tc.name, doc)
		}
		for _, budget := range tc.budgets {
			o := DefaultOptions()
			o.Budget = budget
			res, err := mustNew(t, o).WithAlignUser().Compress(t.Context(), in.Messages)
			if err != nil {
				t.Fatalf("%s, budget %d: %v", tc.name, budget, err)
			}
			sent, err := SpliceRequest(in, res)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(sent, []byte(`"id":"p0"`)) != bytes.Contains(sent, []byte(`"tool_use_id":"p0"`)) {
				t.Errorf("%s, budget %d: the call of the PDF and its result went apart", tc.name, budget)
			}
			kept := bytes.Contains(sent, []byte(`"type":"document"`))
			if kept != tc.kept || res.Tokens > budget || kept && res.Tokens < doc || !bytes.Contains(sent, []byte("spec.pdf")) {
				t.Errorf("%s, budget %d: document kept %v (want %v), %d tokens counted (the document %d), its call named %v",
					tc.name, budget, kept, tc.kept, res.Tokens, doc, bytes.Contains(sent, []byte("spec.pdf")))
			}
		}
	}
}

// TestLoopStubsOldImages: a screenshot a tool read is an observation like
// any other: old ones are stubbed (their calls kept), the newest sent as
// it came, and the request holds its budget. Kept whole, the 20
// screenshots of this loop (1,049 tokens each) filled every budget.
func TestLoopStubsOldImages(t *testing.T) {
	shot, out := screenshot(t), strings.Repeat("  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n", 20)
	ms := []string{`{"role":"user","content":"Make the login page match the mock-up."}`}
	for k := range 20 {
		ms = append(ms,
			fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"s%d","name":"Read","input":{"file_path":"/w/shot%d.png"}}]}`, k, k),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"s%d","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}}]}]}`, k, shot),
			fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Read","input":{"offset":%d}}]}`, k, 100*k),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}`, k, out))
	}
	body := []byte(`{"model":"m","max_tokens":64,"system":"You are a coding agent.","messages":[` + strings.Join(ms, ",") + `]}`)
	in, err := chat.Parse(body, chat.Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{8000, 16000} {
		o := DefaultOptions()
		o.Budget = budget
		c := mustNew(t, o).WithAlignUser()
		sent, back := compressSent(t, c, in, chat.Anthropic)
		images := bytes.Count(sent, []byte(`"type":"image"`))
		newest := bytes.Contains(sent, []byte(`"tool_use_id":"s19","content":[{"type":"image"`))
		if n := c.CountMessages(back.Messages); n > budget || images > 2 || !newest {
			t.Errorf("budget %d: %d tokens sent, %d screenshots, the newest sent as it came %v", budget, n, images, newest)
		}
	}
}

// TestLoopStubsGeminiMedia: Gemini CLI's read_file of a picture answers
// with a functionResponse and the picture as an inlineData part: beside
// it in the same user content, or, to a Gemini 3 model, in the
// functionResponse's own parts. Either way the picture is part of the
// observation (not a person's message, which would be kept whatever the
// budget) and counts as Gemini counts it, so old ones are stubbed and,
// with room for it, the newest is sent as it came. Uncounted in the functionResponse's parts,
// all 20 went upstream, the request's count blind to 22,400 tokens.
func TestLoopStubsGeminiMedia(t *testing.T) {
	shot, out := screenshot(t), strings.Repeat("  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n", 20)
	for _, tc := range []struct {
		name     string
		response string // the read_file's user content, %d its call, %s the picture
	}{
		{"beside the response", `{"role":"user","parts":[{"functionResponse":{"id":"s%d","name":"read_file","response":{"output":"Binary content provided (1 item(s))."}}},{"inlineData":{"mimeType":"image/png","data":"%s"}}]}`},
		{"in the response's parts", `{"role":"user","parts":[{"functionResponse":{"id":"s%d","name":"read_file","response":{"output":"Binary content provided (1 item(s))."},"parts":[{"inlineData":{"mimeType":"image/png","data":"%s"}}]}}]}`},
	} {
		for _, budget := range []int{8000, 16000} {
			t.Run(fmt.Sprintf("%s at %d", tc.name, budget), func(t *testing.T) {
				cs := []string{`{"role":"user","parts":[{"text":"Make the login page match the mock-up."}]}`}
				for k := range 20 {
					cs = append(cs,
						fmt.Sprintf(`{"role":"model","parts":[{"functionCall":{"id":"s%d","name":"read_file","args":{"file_path":"/w/shot%d.png"}}}]}`, k, k),
						fmt.Sprintf(tc.response, k, shot),
						fmt.Sprintf(`{"role":"model","parts":[{"functionCall":{"id":"t%d","name":"read_file","args":{"file_path":"/w/decode.go","offset":%d}}}]}`, k, 100*k),
						fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"id":"t%d","name":"read_file","response":{"output":%q}}}]}`, k, out))
				}
				body := []byte(`{"systemInstruction":{"parts":[{"text":"You are a coding agent."}]},"contents":[` + strings.Join(cs, ",") + `]}`)
				in, err := chat.Parse(body, chat.Gemini)
				if err != nil {
					t.Fatal(err)
				}
				o := DefaultOptions()
				o.Budget = budget
				c := mustNew(t, o)
				res, err := c.Compress(t.Context(), in.Messages)
				if err != nil {
					t.Fatal(err)
				}
				sent, err := SpliceRequest(in, res)
				if err != nil {
					t.Fatal(err)
				}
				back, err := chat.Parse(sent, chat.Gemini)
				if err != nil {
					t.Fatalf("the body sent does not parse: %v", err)
				}
				images := bytes.Count(sent, []byte(`"inlineData"`))
				at := bytes.Index(sent, []byte(`"id":"s19","name":"read_file","response"`))
				newest := at >= 0 && bytes.Count(sent[at:], []byte(`"inlineData"`)) == 1
				// At 8,000 a picture (1,120 tokens) is more than the tenth of
				// the budget a restart keeps verbatim: it stays only while its
				// exchange is the newest.
				if n := c.CountMessages(back.Messages); n > o.Budget || images > 2 || budget > 8000 && (images < 1 || !newest) {
					t.Errorf("%d tokens sent (budget %d), %d of the 20 pictures, the newest sent %v", n, o.Budget, images, newest)
				}
			})
		}
	}
}

// TestLoopStubsAttachedMedia: in Chat Completions a tool message holds
// text alone, so Qwen Code sends the picture its read_file returned as a
// user message after the result: "(attached media from previous tool
// call)" and the picture. That message is part of the observation, not a
// person's text: the history stays a tool loop (the task verbatim, not
// folded into a consolidated memory), old pictures are stubbed and the
// newest is sent as it came. Taken for a person's, the 20 pictures were
// kept whatever the budget, and the history, over it, was consolidated as
// a conversation, the task folded into its memory. pi labels such a
// picture "Attached image(s) from tool result:" ("Tool result image:"
// over Gemini). Text beside a picture other than one such label (naming a
// tool in parentheses or brackets, or a tool result before a colon) is a
// person's.
func TestLoopStubsAttachedMedia(t *testing.T) {
	shot, out := screenshot(t), strings.Repeat("  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n", 20)
	for _, tc := range []struct {
		caption  string
		attached bool
	}{
		{"(attached media from previous tool call)", true},
		{"[image output of read_file]", true},
		{"Tool result image:", true},                  // pi's, in Gemini
		{"Attached image(s) from tool result:", true}, // pi's, in Chat Completions
		{"Screenshot of the failing view:", false},
		{"Here is the tool output:", false},
		{"The toolbar is cut off on my phone, look:", false},
		{"", true},
		{"go on", false},
		{"[Image #1]", false}, // Claude Code's label of a picture a person pasted
		{"Here is what the page looks like on my phone; the button is cut off on the right, please fix that first.", false},
	} {
		ms := []string{`{"role":"system","content":"You are a coding agent."}`, `{"role":"user","content":"Make the login page match the mock-up."}`}
		for k := range 20 {
			parts := `{"type":"image_url","image_url":{"url":"data:image/png;base64,` + shot + `"}}`
			if tc.caption != "" {
				parts = fmt.Sprintf(`{"type":"text","text":%q},`, tc.caption) + parts
			}
			ms = append(ms,
				fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"s%d","type":"function","function":{"name":"read_file","arguments":"{\"file_path\":\"/w/shot%d.png\"}"}}]}`, k, k),
				fmt.Sprintf(`{"role":"tool","tool_call_id":"s%d","content":[{"type":"text","text":"Image overview: 1024x768."}]}`, k),
				`{"role":"user","content":[`+parts+`]}`,
				fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"t%d","type":"function","function":{"name":"read_file","arguments":"{\"offset\":%d}"}}]}`, k, 100*k),
				fmt.Sprintf(`{"role":"tool","tool_call_id":"t%d","content":%q}`, k, out))
		}
		body := []byte(`{"model":"m","messages":[` + strings.Join(ms, ",") + `]}`)
		in, err := chat.Parse(body, chat.OpenAI)
		if err != nil {
			t.Fatal(err)
		}
		users := -1
		if l := asLoop(in.Messages); l != nil {
			users = l.users
		}
		if want := map[bool]int{true: 0, false: 20}[tc.attached]; users != want {
			t.Errorf("caption %.20q: %d messages a person wrote, want %d", tc.caption, users, want)
		}
		if !tc.attached {
			continue
		}
		for _, budget := range []int{8000, 16000} {
			o := DefaultOptions()
			o.Budget = budget
			c := mustNew(t, o)
			sent, back := compressSent(t, c, in, chat.OpenAI)
			images := bytes.Count(sent, []byte(`"type":"image_url"`))
			// The task as it came, or with the memory after a blank line
			// (a string stays a string).
			task := bytes.Contains(sent, []byte(`{"role":"user","content":"Make the login page match the mock-up."}`)) ||
				bytes.Contains(sent, []byte(`{"role":"user","content":"Make the login page match the mock-up.\n\nEarlier steps`))
			if n := c.CountMessages(back.Messages); n > budget || images < 1 || images > 2 || !task {
				t.Errorf("caption %.20q, budget %d: %d tokens sent, %d of the 20 pictures, the task verbatim %v", tc.caption, budget, n, images, task)
			}
		}
	}
}

// compressSent compresses in with c and returns the body sent and its
// parse in format f.
func compressSent(t *testing.T, c *Compressor, in *chat.Input, f chat.Format) ([]byte, *chat.Input) {
	t.Helper()
	res, err := c.Compress(t.Context(), in.Messages)
	if err != nil {
		t.Fatalf("budget %d: %v", c.Options().Budget, err)
	}
	sent, err := SpliceRequest(in, res)
	if err != nil {
		t.Fatal(err)
	}
	back, err := chat.Parse(sent, f)
	if err != nil {
		t.Fatalf("budget %d: the body sent does not parse: %v", c.Options().Budget, err)
	}
	return sent, back
}

// screenshot returns the base64 of a 1024×768 PNG.
func screenshot(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1024, 768))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}
