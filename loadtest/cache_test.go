package loadtest

import (
	"math"
	"strings"
	"testing"

	"github.com/swcmem/swc"
)

// words counts space-separated words: a tokenizer tests can reason about.
func words(s string) int { return len(strings.Fields(s)) }

func TestSharedAndCost(t *testing.T) {
	sys := swc.Message{Role: swc.RoleSystem, Content: "be brief"}
	mem1 := swc.Message{Role: swc.RoleSystem, Content: "memory one two three"}
	mem2 := swc.Message{Role: swc.RoleSystem, Content: "memory one two four five"}
	u := func(s string) swc.Message { return swc.Message{Role: swc.RoleUser, Content: s} }
	call := swc.Message{Role: swc.RoleAssistant, ToolCalls: []swc.ToolCall{{ID: "c1", Name: "f", Arguments: "a b"}}}
	p := func(ms ...swc.Message) Prompt { return NewPrompt(ms, words, 1) }
	cases := []struct {
		name   string
		a, b   Prompt
		shared int
	}{
		{"appended", p(sys, mem1, u("hi there")), p(sys, mem1, u("hi there"), u("and more")), 3 + 5 + 3},
		{"memory changed", p(sys, mem1, u("x")), p(sys, mem2, u("x")), 3 + 3}, // "memory one two " shared
		{"first differs", p(sys), p(u("be brief")), 0},
		{"tool call", p(sys, call), p(sys, call, u("y")), 3 + 1 + 1 + 2},
		{"empty", p(), p(sys), 0},
	}
	for _, c := range cases {
		if got := Shared(c.a, c.b, words); got != c.shared {
			t.Errorf("%s: shared %d, want %d", c.name, got, c.shared)
		}
	}
	// Two requests: the second shares 11 of its 13 tokens.
	ps := []Prompt{p(sys, mem1, u("hi there")), p(sys, mem1, u("hi there"), u("ok"))}
	shared := []int{0, Shared(ps[0], ps[1], words)}
	if ps[0].Tokens != 11 || ps[1].Tokens != 13 || shared[1] != 11 {
		t.Fatalf("tokens %d, %d, shared %d", ps[0].Tokens, ps[1].Tokens, shared[1])
	}
	for _, c := range []struct {
		rule PriceRule
		want float64
	}{
		{RuleAnthropic, 11*1.25 + 11*0.1 + 2*1.25},
		{RuleOpenAI10, 11 + 11*0.1 + 2},
		{RuleOpenAI50, 11 + 11*0.5 + 2},
	} {
		if got := Cost(ps, shared, c.rule); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: cost %g, want %g", c.rule.Name, got, c.want)
		}
	}
	if s := stableShare(ps, shared); s != 0 { // 11/13 < 90%
		t.Errorf("stable share %g", s)
	}
}

func TestRequestPoints(t *testing.T) {
	msgs := []swc.Message{{Role: swc.RoleSystem}, {Role: swc.RoleUser}, {Role: swc.RoleAssistant}, {Role: swc.RoleUser}, {Role: swc.RoleUser}, {Role: swc.RoleAssistant}}
	if got := RequestPoints(msgs); len(got) != 3 || got[0] != 2 || got[1] != 4 || got[2] != 5 {
		t.Errorf("points %v", got)
	}
}
