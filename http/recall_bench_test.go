package http_test

import (
	"io"
	"net/http"
	"testing"
	"time"
)

// TestRecallRoundLatency measures a proxied tool loop (Chat Completions,
// not streamed) against an instant upstream: answered directly, and
// after one swc_recall round (swc answers the call and asks again). The
// difference is what one round adds on top of the upstream's own time.
// go test -run RecallRoundLatency -v ./http
func TestRecallRoundLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a timing")
	}
	c := recallCase{"openai", false}
	msgs, _ := recallLoop("b", 14)
	body := c.body(t, msgs)
	per := map[bool]time.Duration{}
	for _, recall := range []bool{false, true} {
		e := newProxyEnv(t)
		n := 0
		e.up.handle = func(w http.ResponseWriter, r *http.Request, body []byte) {
			n++
			rep := recallReply{}
			if recall && n%2 == 1 {
				m := stubHandle.FindSubmatch(body)
				rep.args = `{"handle":"` + string(m[1]) + `"}`
			}
			writeReply(w, c.proto, c.stream, rep, 1)
		}
		res := testing.Benchmark(func(b *testing.B) {
			for range b.N {
				resp := e.post(t, c.path(), body, "X-SWC-Budget: 1500")
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || (recall && resp.Header.Get("X-SWC-Recall") != "1") {
					b.Fatal(resp.Status, resp.Header.Get("X-SWC-Recall"))
				}
			}
		})
		per[recall] = time.Duration(res.NsPerOp())
		t.Logf("recall=%v: %d requests, %v a request (%d bytes sent)", recall, res.N, per[recall], len(body))
	}
	t.Logf("one swc_recall round adds %v", per[true]-per[false])
}
