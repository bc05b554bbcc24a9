package preserve

// The three mention types of the analysis, in report order.
const (
	Temporal = "temporal"
	Entity   = "entity"
	Event    = "event"
)

// Types lists the mention types in report order.
var Types = []string{Temporal, Entity, Event}

// Conditions lists the conditions that make gists, in report order; other
// variants (from external gists) follow them.
var Conditions = []string{"swc-full", "swc-temporal", "swc-anchored", "sliding", "sliding-temporal"}

// ratioPairs are the (variant, baseline) pairs whose rates Report.Ratios
// compares, when both are present.
var ratioPairs = [][2]string{
	{"swc-temporal", "swc-full"},
	{"swc-anchored", "swc-full"},
	{"swc-anchored", "swc-temporal"},
	{"sliding-temporal", "sliding"},
}

// Report is the result of a preservation analysis.
type Report struct {
	// Conditions lists the variants in report order.
	Conditions []string `json:"conditions"`
	// Types holds, per mention type, the counts of each variant.
	Types map[string]*TypeReport `json:"types"`
	// Ratios compares variants' rates type by type.
	Ratios []Ratio `json:"ratios"`
	// PerConversation holds the same counts for each conversation, in the
	// order of the conversations given.
	PerConversation []ConversationReport `json:"per_conversation"`
	// Examples holds, per type and variant, a few lost mentions.
	Examples map[string]map[string][]Example `json:"examples"`
	// Coverage says how many gists and source turns each variant had.
	Coverage map[string]*Coverage `json:"coverage"`
}

// TypeReport holds the counts of one mention type, per variant.
type TypeReport struct {
	Variants map[string]*Counts `json:"variants"`
}

// Counts are the found and preserved mentions of one type under one
// variant. The value fields are set for the temporal type only.
type Counts struct {
	Found     int     `json:"found"`
	Preserved int     `json:"preserved"`
	Rate      float64 `json:"rate"`
	// Resolved counts the found mentions that have a resolved value.
	Resolved *int `json:"resolved,omitempty"`
	// ValuePreserved counts mentions preserved verbatim or by value.
	ValuePreserved *int `json:"value_preserved,omitempty"`
	// ValueRate is ValuePreserved ÷ Found.
	ValueRate *float64 `json:"value_rate,omitempty"`
}

// Ratio is Variant's rate divided by Baseline's, for one type. Rate (and
// ValueRate) is nil when the baseline's rate is 0.
type Ratio struct {
	Type      string   `json:"type"`
	Variant   string   `json:"variant"`
	Baseline  string   `json:"baseline"`
	Rate      *float64 `json:"rate"`
	ValueRate *float64 `json:"value_rate,omitempty"`
}

// ConversationReport holds one conversation's counts.
type ConversationReport struct {
	Conversation string                 `json:"conversation"`
	Types        map[string]*TypeReport `json:"types"`
}

// Example is one mention a gist lost, with its source sentence and the
// gist (the paper's Appendix A). Session is the 0-based index (the text
// reports show it from 1).
type Example struct {
	Conversation string `json:"conversation"`
	Session      int    `json:"session"`
	Turn         string `json:"turn"`
	Speaker      string `json:"speaker"`
	Kind         string `json:"kind"`
	Mention      string `json:"mention"`
	Value        string `json:"value,omitempty"`
	Phrase       string `json:"phrase,omitempty"`
	// ValuePreserved is true for a temporal mention lost verbatim whose
	// value the gist still carries.
	ValuePreserved bool   `json:"value_preserved,omitempty"`
	Sentence       string `json:"sentence"`
	Gist           string `json:"gist"`
}

// Coverage describes the gists of one variant.
type Coverage struct {
	Gists     int `json:"gists"`
	InContext int `json:"in_context"` // gists the budget kept
	Sessions  int `json:"sessions"`   // session sources, summed over gists
	Turns     int `json:"turns"`      // source turns, summed over gists
	// MissingTurns counts turn ids of gist records not in the conversation.
	MissingTurns int `json:"missing_turns,omitempty"`
}

// HasGists reports whether the report audited at least one gist; bench
// prints the preservation table only then.
func (r *Report) HasGists() bool {
	if r == nil {
		return false
	}
	for _, c := range r.Coverage {
		if c.Gists > 0 {
			return true
		}
	}
	return false
}

// Counts returns the counts of type typ under variant, or nil.
func (r *Report) Counts(typ, variant string) *Counts {
	if r == nil || r.Types[typ] == nil {
		return nil
	}
	return r.Types[typ].Variants[variant]
}
