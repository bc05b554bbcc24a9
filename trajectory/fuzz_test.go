package trajectory

import (
	"context"
	"slices"
	"testing"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/memory"
)

// fuzzFormats are the formats FuzzSWC reads a body in, by its format byte.
var fuzzFormats = []chat.Format{chat.OpenAI, chat.Anthropic, chat.Responses, chat.Gemini}

// FuzzSWC: whatever body swc is given, in any format and at any budget,
// it never panics, and a body that breaks none of its provider's rules
// (the codecs' validate) and that chat reads goes out compressed or as it
// came, breaking none either and read again — never an error where the
// provider would have answered. The seeds are every request of the
// testdata trajectories at three budgets.
func FuzzSWC(f *testing.F) {
	trs, _, err := Load("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, tr := range trs {
		for _, b := range tr.Bodies {
			rp, err := NewReplay(tr.Name, b)
			if err != nil {
				f.Fatal(err)
			}
			fi := uint8(slices.Index(fuzzFormats, b.Format))
			for i := range rp.Len() {
				q, err := rp.Request(i)
				if err != nil {
					f.Fatal(err)
				}
				for _, budget := range []uint16{0, 200, 1500} {
					f.Add(q.Body, fi, budget)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, fi uint8, budget uint16) {
		// A compressor of its own: its memos never carry one input's
		// work into the next, so a failure reproduces from its input.
		base, err := memory.New(memory.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		s := NewSWC("swc", base)
		format := fuzzFormats[int(fi)%len(fuzzFormats)]
		rp := &Replay{Format: format, codec: codecs[format]}
		if len(rp.Breaches(data)) > 0 {
			return
		}
		in, err := chat.Parse(data, format)
		if err != nil {
			return
		}
		out, err := s.Compress(context.Background(), &Request{Body: data, Input: in}, 20+int(budget)%20000)
		if err != nil {
			t.Fatalf("%s at %d tokens: %v\nbody: %s", format, 20+int(budget)%20000, err, data)
		}
		if b := rp.Breaches(out); len(b) > 0 {
			t.Fatalf("%s at %d tokens: the body sent breaks %q\nbody: %s\nsent: %s", format, 20+int(budget)%20000, b, data, out)
		}
		if _, err := chat.Parse(out, format); err != nil {
			t.Fatalf("%s at %d tokens: the body sent does not parse: %v\nsent: %s", format, 20+int(budget)%20000, err, out)
		}
	})
}
