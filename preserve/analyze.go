package preserve

import (
	"sort"
	"time"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/mention"
)

// DefaultExamples is how many lost mentions a report quotes per type and
// variant.
const DefaultExamples = 5

// Options are the settings of an analysis.
type Options struct {
	// Examples is how many lost mentions to quote per type and variant
	// (default DefaultExamples; negative: none).
	Examples int
}

// Analyze audits the gists of contexts, keyed by condition and then by
// conversation id, against the conversations' turns, with the default
// options. It is pure: bench can call it with the contexts it computed.
// Conditions without any gist are left out unless they are among
// Conditions (a sliding window that never needed a summary still shows,
// with zero counts); contexts of conversations not in convs are ignored.
func Analyze(convs []*swc.Conversation, contexts map[string]map[string]*swc.Context) *Report {
	return AnalyzeWith(convs, contexts, Options{})
}

// AnalyzeWith is Analyze with options.
func AnalyzeWith(convs []*swc.Conversation, contexts map[string]map[string]*swc.Context, opts Options) *Report {
	known := map[string]bool{}
	for _, c := range Conditions {
		known[c] = true
	}
	var order, others []string
	for _, c := range Conditions {
		if _, ok := contexts[c]; ok {
			order = append(order, c)
		}
	}
	for name, byConv := range contexts {
		if known[name] {
			continue
		}
		for _, ctx := range byConv {
			if ctx != nil && len(ctx.Gists) > 0 {
				others = append(others, name)
				break
			}
		}
	}
	sort.Strings(others)
	order = append(order, others...)
	gists := map[string]map[string][]swc.GistRecord{}
	for _, name := range order {
		gists[name] = map[string][]swc.GistRecord{}
		for id, ctx := range contexts[name] {
			if ctx != nil {
				gists[name][id] = ctx.Gists
			}
		}
	}
	return analyze(convs, order, gists, opts)
}

// annotated is one source mention, normalized for matching.
type annotated struct {
	m       mention.Mention
	norm    string
	phrases []string // normalized resolved phrase and day date
}

// turnInfo is one source turn and its cached mentions.
type turnInfo struct {
	session int
	turn    *swc.Turn
	done    bool
	types   [3][]annotated // by type index: temporal, entity, event
}

// convSource indexes one conversation's turns.
type convSource struct {
	conv     *swc.Conversation
	speakers []string
	turns    map[string]*turnInfo
}

func newConvSource(c *swc.Conversation) *convSource {
	s := &convSource{conv: c, turns: map[string]*turnInfo{}}
	for _, sp := range []string{c.SpeakerA, c.SpeakerB} {
		if sp != "" {
			s.speakers = append(s.speakers, sp)
		}
	}
	for i := range c.Sessions {
		for j := range c.Sessions[i].Turns {
			t := &c.Sessions[i].Turns[j]
			if _, dup := s.turns[t.ID]; !dup {
				s.turns[t.ID] = &turnInfo{session: i, turn: t}
			}
		}
	}
	return s
}

func (s *convSource) ref(ti *turnInfo) time.Time { return s.conv.Sessions[ti.session].Start }

// multiSession reports whether the turns come from more than one session.
func (s *convSource) multiSession(ids []string) bool {
	first := -1
	for _, id := range ids {
		if ti := s.turns[id]; ti != nil {
			if first >= 0 && ti.session != first {
				return true
			}
			first = ti.session
		}
	}
	return false
}

// annotate returns the turn's mentions by type, extracting them once.
func (s *convSource) annotate(ti *turnInfo) *[3][]annotated {
	if ti.done {
		return &ti.types
	}
	ti.done = true
	text := ti.turn.Text
	add := func(k int, ms []mention.Mention) {
		for _, m := range ms {
			a := annotated{m: m, norm: normalize(m.Text)}
			if k == 0 && m.Value != "" {
				if m.Phrase != "" {
					a.phrases = append(a.phrases, normalize(m.Phrase))
				}
				if d := dayPhrase(m.Value); d != "" {
					a.phrases = append(a.phrases, normalize(d))
				}
			}
			ti.types[k] = append(ti.types[k], a)
		}
	}
	add(0, mention.Temporal(text, s.ref(ti)))
	add(1, mention.Entities(text, s.speakers))
	add(2, mention.Events(text))
	return &ti.types
}

// tally accumulates counts.
type tally struct{ found, preserved, resolved, valuePreserved int }

func (t *tally) counts(temporal bool) *Counts {
	c := &Counts{Found: t.found, Preserved: t.preserved, Rate: rate(t.preserved, t.found)}
	if temporal {
		res, vp, vr := t.resolved, t.valuePreserved, rate(t.valuePreserved, t.found)
		c.Resolved, c.ValuePreserved, c.ValueRate = &res, &vp, &vr
	}
	return c
}

func rate(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// lost is one mention a gist did not keep verbatim.
type lost struct {
	src       *convSource
	ti        *turnInfo
	a         *annotated
	kind      int
	gist      string
	valueKept bool
}

type analyzer struct {
	total   [3]map[string]*tally             // type → variant
	perConv map[string]*[3]map[string]*tally // conv → type → variant
	lost    [3]map[string][]lost
	cov     map[string]*Coverage
}

// analyze is the core of Analyze and FromExternal: order lists the
// variants, gists holds their records by conversation id.
func analyze(convs []*swc.Conversation, order []string, gists map[string]map[string][]swc.GistRecord, opts Options) *Report {
	an := &analyzer{perConv: map[string]*[3]map[string]*tally{}, cov: map[string]*Coverage{}}
	for k := range 3 {
		an.total[k] = map[string]*tally{}
		an.lost[k] = map[string][]lost{}
	}
	var sources []*convSource
	for _, c := range convs {
		if c == nil {
			continue
		}
		sources = append(sources, newConvSource(c))
	}
	for _, v := range order {
		an.cov[v] = &Coverage{}
		for k := range 3 {
			an.total[k][v] = &tally{}
		}
	}
	var present []*convSource
	for _, src := range sources {
		used := false
		for _, v := range order {
			if _, ok := gists[v][src.conv.ID]; ok {
				used = true
			}
		}
		if !used {
			continue
		}
		present = append(present, src)
		pc := &[3]map[string]*tally{}
		for k := range 3 {
			pc[k] = map[string]*tally{}
			for _, v := range order {
				pc[k][v] = &tally{}
			}
		}
		an.perConv[src.conv.ID] = pc
		for _, v := range order {
			for _, g := range gists[v][src.conv.ID] {
				an.gist(v, src, g)
			}
		}
	}
	return an.report(order, present, opts)
}

// gist checks every source mention of g against its text.
func (an *analyzer) gist(variant string, src *convSource, g swc.GistRecord) {
	cov := an.cov[variant]
	cov.Gists++
	if g.InContext {
		cov.InContext++
	}
	cov.Sessions += len(g.Sessions)
	hay := normalize(g.Text)
	// A gist of several sessions cannot say which session a relative
	// expression of its own ("last night") belongs to, so only its
	// reference-free mentions (those that keep a value with a zero
	// reference: dates, durations, clock times, …) count for value
	// preservation; resolved against each source's session they still
	// get its year.
	var absolute map[[2]int]bool
	if src.multiSession(g.Turns) {
		absolute = map[[2]int]bool{}
		for _, m := range mention.Temporal(g.Text, time.Time{}) {
			if m.Value != "" {
				absolute[[2]int{m.Start, m.End}] = true
			}
		}
	}
	values := map[time.Time]map[string]bool{}
	valuesAt := func(ref time.Time) map[string]bool {
		if vs, ok := values[ref]; ok {
			return vs
		}
		vs := map[string]bool{}
		for _, m := range mention.Temporal(g.Text, ref) {
			if m.Value != "" && (absolute == nil || absolute[[2]int{m.Start, m.End}]) {
				vs[m.Value] = true
			}
		}
		values[ref] = vs
		return vs
	}
	pc := an.perConv[src.conv.ID]
	for _, id := range g.Turns {
		ti := src.turns[id]
		if ti == nil {
			cov.MissingTurns++
			continue
		}
		cov.Turns++
		ms := src.annotate(ti)
		for k := range 3 {
			tot, conv := an.total[k][variant], pc[k][variant]
			for i := range ms[k] {
				a := &ms[k][i]
				kept := containsWord(hay, a.norm)
				tot.found++
				conv.found++
				if kept {
					tot.preserved++
					conv.preserved++
				}
				valueKept := false
				if k == 0 {
					if a.m.Value != "" {
						tot.resolved++
						conv.resolved++
						valueKept = valuesAt(src.ref(ti))[a.m.Value]
						for _, p := range a.phrases {
							valueKept = valueKept || containsWord(hay, p)
						}
					}
					if kept || valueKept {
						tot.valuePreserved++
						conv.valuePreserved++
					}
				}
				if !kept {
					an.lost[k][variant] = append(an.lost[k][variant], lost{src: src, ti: ti, a: a, kind: k, gist: g.Text, valueKept: valueKept})
				}
			}
		}
	}
}

func (an *analyzer) report(order []string, present []*convSource, opts Options) *Report {
	r := &Report{
		Conditions:      append([]string{}, order...),
		Types:           map[string]*TypeReport{},
		Ratios:          []Ratio{},
		PerConversation: []ConversationReport{},
		Examples:        map[string]map[string][]Example{},
		Coverage:        an.cov,
	}
	if r.Conditions == nil {
		r.Conditions = []string{}
	}
	n := opts.Examples
	if n == 0 {
		n = DefaultExamples
	}
	for k, typ := range Types {
		tr := &TypeReport{Variants: map[string]*Counts{}}
		ex := map[string][]Example{}
		for _, v := range order {
			tr.Variants[v] = an.total[k][v].counts(k == 0)
			ex[v] = pickExamples(an.lost[k][v], n)
		}
		r.Types[typ] = tr
		r.Examples[typ] = ex
	}
	for _, src := range present {
		cr := ConversationReport{Conversation: src.conv.ID, Types: map[string]*TypeReport{}}
		pc := an.perConv[src.conv.ID]
		for k, typ := range Types {
			tr := &TypeReport{Variants: map[string]*Counts{}}
			for _, v := range order {
				tr.Variants[v] = pc[k][v].counts(k == 0)
			}
			cr.Types[typ] = tr
		}
		r.PerConversation = append(r.PerConversation, cr)
	}
	r.Ratios = ratios(r, order)
	return r
}

// ratios compares the known pairs present in order; when none is present
// (external variants), every variant is compared with the first.
func ratios(r *Report, order []string) []Ratio {
	in := map[string]bool{}
	for _, v := range order {
		in[v] = true
	}
	var pairs [][2]string
	for _, p := range ratioPairs {
		if in[p[0]] && in[p[1]] {
			pairs = append(pairs, p)
		}
	}
	if len(pairs) == 0 {
		for _, v := range order[min(1, len(order)):] {
			pairs = append(pairs, [2]string{v, order[0]})
		}
	}
	out := []Ratio{}
	for _, typ := range Types {
		for _, p := range pairs {
			a, b := r.Types[typ].Variants[p[0]], r.Types[typ].Variants[p[1]]
			ra := Ratio{Type: typ, Variant: p[0], Baseline: p[1], Rate: div(a.Rate, b.Rate)}
			if a.ValueRate != nil && b.ValueRate != nil {
				ra.ValueRate = div(*a.ValueRate, *b.ValueRate)
			}
			out = append(out, ra)
		}
	}
	return out
}

func div(a, b float64) *float64 {
	if b == 0 {
		return nil
	}
	q := a / b
	return &q
}

// pickExamples chooses up to n lost mentions, spread evenly over the list
// (which is in conversation, gist and turn order): first among mentions lost
// altogether, then among temporal ones whose value the gist still carries.
func pickExamples(all []lost, n int) []Example {
	out := []Example{}
	if n <= 0 {
		return out
	}
	var gone, kept []lost
	for _, l := range all {
		if l.valueKept {
			kept = append(kept, l)
		} else {
			gone = append(gone, l)
		}
	}
	for _, pool := range [][]lost{gone, kept} {
		want := min(n-len(out), len(pool))
		for i := range want {
			out = append(out, pool[i*len(pool)/want].example())
		}
	}
	return out
}

func (l lost) example() Example {
	m := l.a.m
	kind := string(m.Kind)
	return Example{
		Conversation:   l.src.conv.ID,
		Session:        l.src.conv.Sessions[l.ti.session].Index,
		Turn:           l.ti.turn.ID,
		Speaker:        l.ti.turn.Speaker,
		Kind:           kind,
		Mention:        m.Text,
		Value:          m.Value,
		Phrase:         m.Phrase,
		ValuePreserved: l.valueKept,
		Sentence:       sentenceAround(l.ti.turn.Text, m.Start, m.End),
		Gist:           l.gist,
	}
}
