package consolidate

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mock"
)

// hashEmbedder hashes words into a small vector space.
func hashEmbedder() *mock.Embedder { return &mock.Embedder{ID: "fake", EmbedFn: hashEmbed} }

func hashEmbed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 16)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%16]++
		}
		out[i] = v
	}
	return out, nil
}

// lineGister returns the last turn line of the chunk, marked with the
// variant.
func lineGister() *mock.Gister {
	return &mock.Gister{ID: "fake-gister", GistFn: func(_ context.Context, req swc.GistRequest) (string, error) {
		lines := strings.Split(strings.TrimSpace(req.Text), "\n")
		return fmt.Sprintf("(%s) %s", req.Variant, lines[len(lines)-1]), nil
	}}
}

// countCaps counts capitalised words that do not start the text.
func countCaps(text string, speakers []string) int {
	n := 0
	for i, w := range strings.Fields(text) {
		if i > 0 && w != "" && w[0] >= 'A' && w[0] <= 'Z' {
			n++
		}
	}
	return n
}

// testConversation builds n sessions a day apart with turns words each.
func testConversation(n, turns int) *swc.Conversation {
	c := &swc.Conversation{ID: "t", SpeakerA: "Ana", SpeakerB: "Ben"}
	start := time.Date(2023, 5, 1, 10, 0, 0, 0, time.UTC)
	topics := []string{"pottery class in Lisbon", "running the Boston marathon", "adopting a dog named Rex", "the garden and tomatoes", "a trip to Kyoto in 2022"}
	for i := range n {
		s := swc.Session{Index: i, Start: start.AddDate(0, 0, 3*i), DateText: start.AddDate(0, 0, 3*i).Format("3:04 pm on 2 January, 2006")}
		for j := range turns {
			sp := "Ana"
			if j%2 == 1 {
				sp = "Ben"
			}
			s.Turns = append(s.Turns, swc.Turn{
				ID:      fmt.Sprintf("D%d:%d", i+1, j+1),
				Speaker: sp,
				Text:    fmt.Sprintf("Turn %d of session %d is about %s and we talked for a while about it.", j+1, i+1, topics[(i+j)%len(topics)]),
			})
		}
		c.Sessions = append(c.Sessions, s)
	}
	return c
}
