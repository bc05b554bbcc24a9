package chat

import (
	"github.com/swcmem/swc"
	"strings"
	"testing"
)

// TestSpliceSizedForOutput: a compressed request keeps a small part of a
// large body, and the bytes Splice returns go upstream and are held until
// the provider answers: their buffer is sized for what they hold, not for
// the body read (it held a copy's worth of the input before, 16 MB for a
// 16 MB request sent as 80 KB).
func TestSpliceSizedForOutput(t *testing.T) {
	big := strings.Repeat("line of a long tool output\\n", 40_000) // about 1 MB
	for _, tc := range []struct {
		f    Format
		body string
	}{
		{OpenAI, `{"model":"m","messages":[{"role":"user","content":"` + big + `"},{"role":"assistant","content":"ok"},{"role":"user","content":"and now?"}]}`},
		{Anthropic, `{"model":"m","max_tokens":9,"system":"be brief","messages":[{"role":"user","content":"` + big + `"},{"role":"assistant","content":"ok"},{"role":"user","content":"and now?"}]}`},
		{Responses, `{"model":"m","input":[{"role":"user","content":"` + big + `"},{"role":"assistant","content":"ok"},{"role":"user","content":"and now?"}]}`},
		{Gemini, `{"contents":[{"role":"user","parts":[{"text":"` + big + `"}]},{"role":"model","parts":[{"text":"ok"}]},{"role":"user","parts":[{"text":"and now?"}]}]}`},
		{Interactions, `{"model":"gemini-3-flash-preview","input":[{"role":"user","content":"` + big + `"},{"role":"model","content":"ok"},{"role":"user","content":"and now?"}]}`},
	} {
		in, err := Parse([]byte(tc.body), tc.f)
		if err != nil {
			t.Fatalf("%s: %v", tc.f, err)
		}
		last := len(in.Messages) - 1
		out := Output{Messages: in.Messages[last:], Source: []int{last}, Memory: "Earlier: a long output was read.", NoCacheMark: true}
		out.Messages = append([]swc.Message{{Role: swc.RoleSystem, Content: out.Memory}}, out.Messages...)
		out.Source = append([]int{-1}, out.Source...)
		got, err := Splice(in, out)
		if err != nil {
			t.Fatalf("%s: %v", tc.f, err)
		}
		if _, err := Parse(got, tc.f); err != nil {
			t.Errorf("%s: the body written does not parse: %v", tc.f, err)
		}
		if cap(got) > 2*len(got)+4096 {
			t.Errorf("%s: %d bytes written in a buffer of %d (the body read is %d)", tc.f, len(got), cap(got), len(tc.body))
		}
	}
}
