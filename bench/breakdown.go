package bench

import "strconv"

// The keys of a typed run (see Summary.Types): KeyAll aggregates every
// question but the abstention ones, as "1-4" does LoCoMo's categories 1–4;
// KeyAbstention holds the abstention questions, reported apart as LoCoMo's
// category 5 is.
const (
	KeyAll        = "all"
	KeyAbstention = "abstention"
)

// Breakdown says how a summary's results are broken down: by LoCoMo's
// categories, or by a typed data set's question types.
type Breakdown struct {
	// Groups are the keys of the per-group tables, in report order.
	Groups []string
	// Primary is the aggregate key of the headline tables ("1-4", KeyAll).
	Primary string
	// Apart is the key reported in a table of its own ("5", KeyAbstention).
	Apart string
	// Temporal is the key of the temporal questions ("2",
	// "temporal-reasoning"), which the paired table and the
	// per-conversation table show beside the aggregate.
	Temporal string
	// PerConversation says a per-conversation table is worth showing;
	// false when conversations hold one question each (LongMemEval).
	PerConversation bool
	// Typed says the keys are question types (LongMemEval).
	Typed bool
}

// LoCoMoBreakdown is the breakdown by LoCoMo's categories.
var LoCoMoBreakdown = Breakdown{Groups: []string{"1", "2", "3", "4"}, Primary: "1-4", Apart: "5", Temporal: "2", PerConversation: true}

// TemporalType is the question type TypedBreakdown takes for Temporal
// (LongMemEval's).
const TemporalType = "temporal-reasoning"

// TypedBreakdown returns the breakdown by question types (in order).
func TypedBreakdown(types []string) Breakdown {
	return Breakdown{Groups: types, Primary: KeyAll, Apart: KeyAbstention, Temporal: TemporalType, Typed: true}
}

// Aggregate names the primary aggregate in words: "categories 1–4", or
// "every type but abstention".
func (b Breakdown) Aggregate() string {
	if b.Typed {
		return "every type but abstention"
	}
	return "categories 1–4"
}

// Keys returns every key in report order: the groups, the one apart, then
// the aggregate (CategoryKeys for LoCoMo).
func (b Breakdown) Keys() []string {
	out := append([]string(nil), b.Groups...)
	return append(out, b.Apart, b.Primary)
}

// Breakdown returns how s is broken down: by s.Types when it has any, else
// by LoCoMo's categories.
func (s *Summary) Breakdown() Breakdown {
	if len(s.Types) > 0 {
		return TypedBreakdown(s.Types)
	}
	return LoCoMoBreakdown
}

// groupKey returns the key of a row's own group: its type, KeyAbstention for
// an abstention question, else its category.
func groupKey(r Row) string {
	switch {
	case r.Abstention:
		return KeyAbstention
	case r.Type != "":
		return r.Type
	}
	return strconv.Itoa(r.Category)
}

// inKey reports whether a row belongs to a key: its own group's, or the
// aggregate of its kind ("1-4" for categories 1–4, KeyAll for any typed
// question but an abstention one).
func inKey(r Row, key string) bool {
	if r.Type != "" || r.Abstention {
		if key == KeyAll {
			return !r.Abstention
		}
		return groupKey(r) == key
	}
	if key == "1-4" {
		return r.Category >= 1 && r.Category <= 4
	}
	return strconv.Itoa(r.Category) == key
}
