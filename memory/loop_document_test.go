package memory

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/swcmem/swc/chat"
)

// TestLoopCountsDocuments: a PDF a tool read early in a loop counts its
// pages (chat's document rule), so a budget below them holds by letting
// that exchange go, and one above them keeps it and counts it. Counted
// as its placeholder, it was kept at 16,000 and sent 12,000 tokens over.
func TestLoopCountsDocuments(t *testing.T) {
	var pdf strings.Builder
	pdf.WriteString("%PDF-1.7\n")
	for i := range 4 {
		fmt.Fprintf(&pdf, "%d 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n", 3+i)
	}
	out := strings.Repeat("  12\tfunc decode(r *Reader) (Value, error) { return r.next() }\n", 60)
	ms := []string{`{"role":"user","content":"Implement the spec in spec.pdf."}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"p0","name":"Read","input":{"file_path":"/w/spec.pdf"}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"p0","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` +
			base64.StdEncoding.EncodeToString([]byte(pdf.String())) + `"}}]}]}`}
	for k := range 20 {
		ms = append(ms,
			fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"I read part %d."},{"type":"tool_use","id":"t%d","name":"Read","input":{"offset":%d}}]}`, k, k, 100*k),
			fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}`, k, out))
	}
	body := []byte(`{"model":"m","max_tokens":64,"system":"You are a coding agent.","messages":[` + strings.Join(ms, ",") + `]}`)
	in, err := chat.Parse(body, chat.Anthropic)
	if err != nil {
		t.Fatal(err)
	}
	doc := in.Messages[3].MediaTokens
	if doc < 4*1000 {
		t.Fatalf("the 4-page PDF counts %d tokens", doc)
	}
	for _, tc := range []struct {
		budget int
		kept   bool
	}{{8000, false}, {16000, false}, {32000, true}} {
		o := DefaultOptions()
		o.Budget = tc.budget
		res, err := mustNew(t, o).WithAlignUser().Compress(t.Context(), in.Messages)
		if err != nil {
			t.Fatalf("budget %d: %v", tc.budget, err)
		}
		sent, err := SpliceRequest(in, res)
		if err != nil {
			t.Fatal(err)
		}
		kept := bytes.Contains(sent, []byte(`"type":"document"`))
		if kept != tc.kept || res.Tokens > tc.budget || kept && res.Tokens < doc {
			t.Errorf("budget %d: document kept %v (want %v), %d tokens counted (the document %d)", tc.budget, kept, tc.kept, res.Tokens, doc)
		}
	}
}
