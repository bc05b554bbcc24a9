package chat

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/swcmem/swc/tokens"
)

// pdfBase64 returns the base64 of a PDF of n pages, its page objects
// written out or, with packed, inside a compressed object stream (as PDF
// 1.5 writers pack them), and with dropTypes its pages without their
// /Type, as a damaged file may be (its page tree's /Count is all left).
func pdfBase64(t testing.TB, n int, packed, dropTypes bool) string {
	t.Helper()
	var objs strings.Builder
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", 3+i)
		typ := "/Type /Page "
		if dropTypes {
			typ = ""
		}
		fmt.Fprintf(&objs, "%d 0 obj\n<< %s/Parent 2 0 R /MediaBox [0 0 612 792] >>\nendobj\n", 3+i, typ)
	}
	pdf := "%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" +
		fmt.Sprintf("2 0 obj\n<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n", strings.Join(kids, " "), n)
	if packed {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write([]byte(objs.String()))
		w.Close()
		pdf += fmt.Sprintf("%d 0 obj\n<< /Type /ObjStm /N %d /First 0 /Filter /FlateDecode /Length %d >>\nstream\r\n%s\nendstream\nendobj\n", 3+n, n, z.Len(), z.String())
		// Without its page tree's count, so that only the stream tells.
		pdf = strings.Replace(pdf, fmt.Sprintf("/Count %d", n), "/Count 0", 1)
	} else {
		pdf += objs.String()
	}
	pdf += "trailer\n<< /Root 1 0 R >>\n%%EOF\n"
	return base64.StdEncoding.EncodeToString([]byte(pdf))
}

func TestPDFPages(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want int
	}{
		{"three pages", pdfBase64(t, 3, false, false), 3},
		{"one page", pdfBase64(t, 1, false, false), 1},
		{"twelve pages in an object stream", pdfBase64(t, 12, true, false), 12},
		{"pages without /Type: the tree's count", pdfBase64(t, 5, false, true), 5},
		{"base64 in lines of 76", func() string {
			s := pdfBase64(t, 4, false, false)
			var b strings.Builder
			for len(s) > 76 {
				b.WriteString(s[:76] + "\n")
				s = s[76:]
			}
			return b.String() + s
		}(), 4},
		{"no PDF", base64.StdEncoding.EncodeToString([]byte("hello, world")), 0},
		{"not base64", "%%%", 0},
		{"empty", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 2 { // the second from the cache
				if got := pdfPages(tc.data); got != tc.want {
					t.Errorf("pdfPages = %d, want %d", got, tc.want)
				}
				if got := pdfPages([]byte(tc.data)); got != tc.want {
					t.Errorf("pdfPages of bytes = %d, want %d", got, tc.want)
				}
			}
		})
	}
}

// TestDocumentTokens: a document counts its pages or its text in every
// format, the fast and general Anthropic and OpenAI readers alike.
func TestDocumentTokens(t *testing.T) {
	pdf3, pdf12 := pdfBase64(t, 3, false, false), pdfBase64(t, 12, true, false)
	text := "Section 4.2: the retry budget is 3 attempts, then the job fails."
	for _, tc := range []struct {
		name string
		body string
		f    Format
		want []int
	}{
		{"anthropic PDF, text and content documents", `{"messages":[{"role":"user","content":[` +
			`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdf3 + `"}},` +
			`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"` + text + `"},"title":"spec"},` +
			`{"type":"document","source":{"type":"content","content":[{"type":"text","text":"` + text + `"},{"type":"text","text":"` + text + `"}]}},` +
			`{"type":"text","text":"summarise these"}]}]}`,
			Anthropic, []int{3*pdfPageTokens + 3*tokens.Count(text)}},
		{"anthropic PDF read by a tool, one by URL", `{"messages":[{"role":"user","content":"read it"},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"/w/spec.pdf"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"r1","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdf12 + `"}}]},` +
			`{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"}}]}]}`,
			Anthropic, []int{0, 0, 12 * pdfPageTokens, pdfPageTokens}},
		{"openai file parts", `{"messages":[{"role":"user","content":[{"type":"text","text":"read"},{"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,` + pdf3 + `"}}]},` +
			`{"role":"user","content":[{"type":"file","file":{"file_id":"file-abc"}}]}]}`,
			OpenAI, []int{3 * pdfPageTokens, pdfPageTokens}},
		{"responses input_file", `{"input":[{"role":"user","content":[{"type":"input_text","text":"read"},{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,` + pdf12 + `"}]}]}`,
			Responses, []int{12 * pdfPageTokens}},
		{"gemini inline PDF", `{"contents":[{"role":"user","parts":[{"text":"read"},{"inlineData":{"mimeType":"application/pdf","data":"` + pdf3 + `"}}]}]}`,
			Gemini, []int{3 * geminiPDFPageTokens}},
	} {
		parsers := []struct {
			name string
			in   func() (*Input, error)
		}{{"general", func() (*Input, error) { return parseGeneral([]byte(tc.body), tc.f, reading{}) }}}
		if tc.f == Anthropic || tc.f == OpenAI {
			parsers = append(parsers, struct {
				name string
				in   func() (*Input, error)
			}{"fast", func() (*Input, error) { return parseFast([]byte(tc.body), tc.f, false), nil }})
		}
		for _, p := range parsers {
			in, err := p.in()
			if err != nil || in == nil {
				t.Errorf("%s (%s): read nothing: %v", tc.name, p.name, err)
				continue
			}
			var got []int
			for _, m := range in.Messages {
				got = append(got, m.MediaTokens)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("%s (%s): media tokens %v, want %v", tc.name, p.name, got, tc.want)
			}
		}
	}
}

// BenchmarkPDFPages counts the pages of a 100-page PDF of about 10 MB (a
// page of 100 KB of stream data each), the first time (decoded and
// scanned) and again (from the cache), beside decoding its base64 alone.
func BenchmarkPDFPages(b *testing.B) {
	var pdf strings.Builder
	pdf.WriteString("%PDF-1.7\n")
	noise := bytes.Repeat([]byte("q 0.5 0 0 0.5 72 720 cm BT /F1 12 Tf (page text) Tj ET Q\n"), 100<<10/58)
	for i := range 100 {
		fmt.Fprintf(&pdf, "%d 0 obj\n<< /Type /Page /Parent 2 0 R /Contents %d 0 R >>\nendobj\n", 3+2*i, 4+2*i)
		fmt.Fprintf(&pdf, "%d 0 obj\n<< /Length %d >>\nstream\n%s\nendstream\nendobj\n", 4+2*i, len(noise), noise)
	}
	data := base64.StdEncoding.EncodeToString([]byte(pdf.String()))
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			base64.StdEncoding.DecodeString(data)
		}
	})
	b.Run("first", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			pdfCache = newCounts(256) // forget what was counted
			if pdfPages(data) != 100 {
				b.Fatal("not 100 pages")
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			pdfPages(data)
		}
	})
}

// TestPDFPagesBomb: an object stream that inflates to far more than
// pdfInflateMax is read no further, and the count falls back to the page
// tree's.
func TestPDFPagesBomb(t *testing.T) {
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 64 { // 64 MiB of zeros, about 64 KB compressed
		w.Write(zeros)
	}
	w.Close()
	pdf := "%PDF-1.7\n1 0 obj\n<< /Type /Pages /Kids [] /Count 7 >>\nendobj\n" +
		"2 0 obj\n<< /Type /ObjStm /N 1 /First 0 /Filter /FlateDecode >>\nstream\n" + z.String() + "\nendstream\nendobj\n%%EOF\n"
	if got := pdfPages(base64.StdEncoding.EncodeToString([]byte(pdf))); got != 7 {
		t.Errorf("pdfPages = %d, want the page tree's 7", got)
	}
}

// TestPDFPagesCrafted: files made of nothing but dictionary openings that
// never close cost time linear in their size (each search bounded), not
// quadratic: 4 MB of each in under 5 seconds (0.1 s on the machine that
// measured it).
func TestPDFPagesCrafted(t *testing.T) {
	for _, unit := range []string{"/Type /Pages ", "/Type /ObjStm stream x", "/Type /Page /Type /ObjStm "} {
		data := base64.StdEncoding.EncodeToString([]byte("%PDF-1.7\n" + strings.Repeat(unit, 4<<20/len(unit))))
		start := time.Now()
		pdfPages(data)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q × %d: %v", unit, 4<<20/len(unit), d)
		}
	}
}
