package mention

import (
	"strings"
	"time"
)

// Anchor returns text with " [D Month YYYY]" (or, where the expression is
// not a single day, its canonical phrase such as "the week before 9 June
// 2023") inserted right after every relative expression that resolves
// against ref: "last Saturday" becomes "last Saturday [20 May 2023]".
// Absolute dates, durations, ages and sets are left untouched, and so is
// everything when ref is zero.
func Anchor(text string, ref time.Time) string {
	if ref.IsZero() {
		return text
	}
	ms := Temporal(text, ref)
	var b strings.Builder
	last := 0
	for _, m := range ms {
		if m.Kind != Relative && !(m.Kind == Time && m.Phrase != "") || m.Value == "" {
			continue
		}
		note := m.Phrase
		if t, err := time.Parse("2006-01-02", m.Value); err == nil {
			note = dayPhrase(t)
		}
		if note == "" {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(text) + 32)
		}
		b.WriteString(text[last:m.End])
		b.WriteString(" [")
		b.WriteString(note)
		b.WriteByte(']')
		last = m.End
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}
