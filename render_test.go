package swc_test

import (
	goldenfile "github.com/swcmem/swc/internal/golden"
	"path/filepath"
	"testing"
	"time"

	"github.com/swcmem/swc"
)

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name+".golden"), []byte(got))
}

func testConversation() *swc.Conversation {
	return &swc.Conversation{
		ID: "t", SpeakerA: "Ana", SpeakerB: "Ben",
		Sessions: []swc.Session{
			{Index: 0, Start: time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), DateText: "1:56 pm on 8 May, 2023", Turns: []swc.Turn{
				{ID: "D1:1", Speaker: "Ana", Text: "Hi Ben! I went to a pottery class yesterday."},
				{ID: "D1:2", Speaker: "Ben", Text: "Nice!  Show me\nwhat you made.", Image: nil},
				{ID: "D1:3", Speaker: "Ana", Text: "Here it is.", Image: &swc.Image{Caption: "a photo of a blue bowl", URLs: []string{"https://example.com/b.jpg"}}},
			}},
			{Index: 1, Start: time.Date(2023, 5, 25, 13, 14, 0, 0, time.UTC), DateText: "1:14 pm on 25 May, 2023", Turns: []swc.Turn{
				{ID: "D2:1", Speaker: "Ben", Text: "I ran a charity race last Sunday."},
				{ID: "D2:2", Speaker: "Ana", Text: "Great job!"},
			}},
			{Index: 2, Start: time.Date(2023, 6, 9, 19, 55, 0, 0, time.UTC), DateText: "7:55 pm on 9 June, 2023", Turns: []swc.Turn{
				{ID: "D3:1", Speaker: "Ana", Text: "I gave a talk at a school last week."},
			}},
		},
	}
}

func TestRenderGolden(t *testing.T) {
	c := testConversation()
	tests := []struct {
		name   string
		blocks []swc.Block
	}{
		{"render_full", nil},
		{"render_mixed", []swc.Block{
			{Session: &c.Sessions[0], Turns: c.Sessions[0].Turns},
			{Session: &c.Sessions[1], Gist: "Ben ran a charity race on the Sunday before 25 May 2023.\n\n"},
			{Session: &c.Sessions[2], Turns: c.Sessions[2].Turns[:1]},
		}},
		{"render_summary", []swc.Block{
			{First: 0, Last: 1, Gist: "Ana took a pottery class; Ben ran a charity race."},
			{Session: &c.Sessions[2], Turns: c.Sessions[2].Turns},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := swc.RenderConversation(c)
			if tt.blocks != nil {
				got = swc.Render(tt.blocks)
			}
			golden(t, tt.name, got)
		})
	}
}

func TestRenderEmpty(t *testing.T) {
	if got := swc.Render(nil); got != "" {
		t.Fatalf("Render(nil) = %q, want empty", got)
	}
}

func TestRenderTurn(t *testing.T) {
	tests := []struct {
		turn swc.Turn
		want string
	}{
		{swc.Turn{Speaker: "A", Text: "hello"}, "A: hello"},
		{swc.Turn{Speaker: "A", Text: "two\nlines"}, "A: two lines"},
		{swc.Turn{Speaker: "A", Text: "", Image: &swc.Image{Caption: "a cat"}}, "A: [shares an image: a cat]"},
		{swc.Turn{Speaker: "A", Text: "x", Image: &swc.Image{URLs: []string{"u"}}}, "A: x"},
		{swc.Turn{Speaker: "Zoë", Text: "café 😀"}, "Zoë: café 😀"},
	}
	for _, tt := range tests {
		if got := swc.RenderTurn(tt.turn); got != tt.want {
			t.Errorf("RenderTurn(%+v) = %q, want %q", tt.turn, got, tt.want)
		}
	}
}
