// Package swc holds the domain vocabulary of Salience-Weighted Consolidation:
// conversations, sessions and turns; the chunks, tiers and contexts that
// compression produces; and the interfaces (Strategy, Embedder, Gister, LLM)
// that the adapter packages implement. It has no dependencies outside the
// standard library.
package swc

import (
	"fmt"
	"strconv"
	"time"
)

// Conversation is one multi-session dialogue between two speakers, with the
// questions asked about it.
type Conversation struct {
	ID        string     `json:"id"`
	SpeakerA  string     `json:"speaker_a"`
	SpeakerB  string     `json:"speaker_b"`
	Sessions  []Session  `json:"sessions"`
	Questions []Question `json:"questions,omitempty"`
}

// Session is one sitting of a conversation. Index counts from 0; LoCoMo's
// session_1 (turn ids D1:…) is Index 0.
type Session struct {
	Index    int       `json:"index"`
	Start    time.Time `json:"start"`
	DateText string    `json:"date_text"`
	Turns    []Turn    `json:"turns"`
}

// Turn is one utterance. Text never contains the image caption; a shared
// image is kept apart in Image.
type Turn struct {
	ID      string `json:"id"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	Image   *Image `json:"image,omitempty"`
}

// Image is a picture shared in a turn.
type Image struct {
	URLs    []string `json:"urls,omitempty"`
	Caption string   `json:"caption,omitempty"`
	Query   string   `json:"query,omitempty"`
}

// Category is LoCoMo's question category, numbered as in LoCoMo's own
// evaluation code (task_eval/evaluation.py).
type Category int

// The five LoCoMo categories.
const (
	MultiHop    Category = 1
	Temporal    Category = 2
	OpenDomain  Category = 3
	SingleHop   Category = 4
	Adversarial Category = 5
)

// Categories lists every category in order.
var Categories = []Category{MultiHop, Temporal, OpenDomain, SingleHop, Adversarial}

// String returns the category's name ("multi-hop", "temporal", …).
func (c Category) String() string {
	switch c {
	case MultiHop:
		return "multi-hop"
	case Temporal:
		return "temporal"
	case OpenDomain:
		return "open-domain"
	case SingleHop:
		return "single-hop"
	case Adversarial:
		return "adversarial"
	}
	return fmt.Sprintf("category-%d", int(c))
}

// Valid reports whether c is one of the five LoCoMo categories.
func (c Category) Valid() bool { return c >= MultiHop && c <= Adversarial }

// Question is one benchmark question about a conversation. Answer is always
// a string (LoCoMo stores some answers as JSON numbers, such as 2022).
type Question struct {
	ID                string   `json:"id"`
	Question          string   `json:"question"`
	Answer            string   `json:"answer"`
	AdversarialAnswer string   `json:"adversarial_answer,omitempty"`
	Category          Category `json:"category"`
	Evidence          []string `json:"evidence,omitempty"`
	// Type is the question's type in a data set that names types rather
	// than numbering categories (LongMemEval: "multi-session", …); empty
	// for LoCoMo. The bench breaks results down by it when it is set.
	Type string `json:"type,omitempty"`
	// Abstention marks a question whose right answer is that the
	// conversation does not tell (LongMemEval's "_abs" questions).
	Abstention bool `json:"abstention,omitempty"`
	// Date is when the question is asked (LongMemEval's question_date);
	// zero when the data set does not say.
	Date time.Time `json:"date,omitzero"`
}

// TurnCount returns the number of turns over all sessions.
func (c *Conversation) TurnCount() int {
	n := 0
	for _, s := range c.Sessions {
		n += len(s.Turns)
	}
	return n
}

// Turn returns the turn with the given id and true, or false when there is none.
func (c *Conversation) Turn(id string) (Turn, bool) {
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			if t.ID == id {
				return t, true
			}
		}
	}
	return Turn{}, false
}

// FindConversation returns the conversation of convs whose ID is id, or,
// when id is a decimal number, the one at that 0-based position; nil when
// there is none.
func FindConversation(convs []*Conversation, id string) *Conversation {
	for _, c := range convs {
		if c != nil && c.ID == id {
			return c
		}
	}
	if n, err := strconv.Atoi(id); err == nil && strconv.Itoa(n) == id && n >= 0 && n < len(convs) {
		return convs[n]
	}
	return nil
}

// Upto returns a shallow copy of c holding only its first n sessions (all
// of them when n <= 0 or n >= len(c.Sessions)). Replay uses it.
func (c *Conversation) Upto(n int) *Conversation {
	cp := *c
	if n > 0 && n < len(c.Sessions) {
		cp.Sessions = c.Sessions[:n]
	}
	return &cp
}
