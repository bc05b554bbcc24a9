package http

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestItemTap: the tap keeps the output items of an answer whatever the
// reads that carry it (a byte at a time here): each
// response.output_item.done of a stream (LF or CRLF lines), the output of
// a JSON answer, each with the id of its response (a stream's
// response.created, a JSON answer's id); nothing of an error or a line
// past its bound, and it passes every byte on.
func TestItemTap(t *testing.T) {
	const msg = `{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"hi"}]}`
	const call = `{"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{}"}`
	for _, tc := range []struct {
		name   string
		stream bool
		body   string
		want   []string
	}{
		{"stream", true, "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_9\",\"output\":[]}}\n\n" +
			"event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"item\":" + msg + "}\n\n" +
			"event: response.output_item.done\r\ndata: {\"type\":\"response.output_item.done\",\"item\":" + call + "}\r\n\r\n" +
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"output\":[" + msg + "]}}\n\n", []string{"resp_9/msg_1", "resp_9/fc_1"}},
		{"an item naming response.created before the event", true, "data: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"message\",\"id\":\"msg_2\",\"content\":[{\"type\":\"output_text\",\"text\":\"response.created\"}]}}\n\n", []string{"/msg_2"}},
		{"stream without response.created", true, "data: {\"type\":\"response.output_item.done\",\"item\":" + msg + "}\n\n", []string{"/msg_1"}},
		{"json", false, `{"id":"resp_1","output":[` + msg + `,` + call + `]}`, []string{"resp_1/msg_1", "resp_1/fc_1"}},
		{"an item without an id", false, `{"output":[{"type":"message"}]}`, nil},
		{"not JSON", false, `<html>`, nil},
		{"an added item, not done", true, "data: {\"type\":\"response.output_item.added\",\"item\":" + msg + "}\n\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var kept []string
			tap := &itemTap{rc: io.NopCloser(strings.NewReader(tc.body)), stream: tc.stream, keep: func(resp, id string, item []byte) {
				kept = append(kept, resp+"/"+id)
				if !strings.HasPrefix(string(item), `{"type":`) {
					t.Errorf("item %s kept as %q", id, item)
				}
			}}
			got, err := io.ReadAll(iotest.OneByteReader(tap))
			if err != nil || string(got) != tc.body {
				t.Fatalf("passed on %q, %v", got, err)
			}
			if strings.Join(kept, ",") != strings.Join(tc.want, ",") {
				t.Errorf("kept %v, want %v", kept, tc.want)
			}
		})
	}
}

// BenchmarkItemTap: relaying a streamed Responses answer through the tap
// against relaying it as it came, per answer size.
func BenchmarkItemTap(b *testing.B) {
	const msg = `{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"hi"}]}`
	for _, kb := range []int{4, 64, 1024} {
		var sb strings.Builder
		for sb.Len() < kb<<10 {
			sb.WriteString("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"delta\":\"Reading part 7 of the log, line by line.\"}\n\n")
		}
		sb.WriteString("event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"item\":" + msg + "}\n\n")
		body := sb.String()
		b.Run(fmt.Sprintf("%dKiB/relay", kb), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				io.Copy(io.Discard, struct{ io.Reader }{strings.NewReader(body)}) // as the proxy copies: through a buffer
			}
		})
		b.Run(fmt.Sprintf("%dKiB/tap", kb), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				tap := &itemTap{rc: io.NopCloser(strings.NewReader(body)), stream: true, keep: func(string, string, []byte) {}}
				io.Copy(io.Discard, struct{ io.Reader }{tap})
			}
		})
	}
}
