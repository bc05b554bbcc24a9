// Package selection implements swc-select, the question-agnostic strategy
// that selects below the session: single sentences of turns are chosen
// for the information they add per token — coverage of the conversation's
// distinct content (a term already kept adds nothing, so three turns saying
// the same thing are not all kept), named entities, numbers and dates, the
// speaker telling of themselves rather than asking — and kept verbatim with
// temporal anchors, in order, under headers giving each session's day,
// with markers where sentences and turns were left out.
//
// Its Analysis of a conversation (anchored turn text, token counts, terms,
// salience counts) does not depend on the budget or the question; it is
// computed once per conversation and shared (see Analyzer).
package selection

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bm25"
	"github.com/swcmem/swc/tokens"
)

// TurnInfo is what the analysis knows about one turn.
type TurnInfo struct {
	Session int // session index
	Pos     int // position in the session
	Turn    swc.Turn
	// Line is the rendered turn ("Speaker: text"), anchored when the
	// analyzer has an Anchor function; Tokens its cl100k_base count plus
	// the newline before it.
	Line   string
	Tokens int
	// Prefix is the token cost of "Speaker: " and the newline.
	Prefix int
	// Terms are the turn's BM25 terms with repetition (package bm25),
	// the speaker prefix excluded.
	Terms []string
	// Units are the turn's sentences (a shared image's caption is a
	// sentence of its own), filled by Analysis.SentenceUnits; Whole is the
	// turn as one unit (its text without the speaker prefix). They are the
	// units of selection.
	Units []Unit
	Whole Unit
}

// Unit is one sentence of a turn.
type Unit struct {
	Text   string
	Tokens int      // its count plus the space before it
	Terms  []string // distinct BM25 terms
	ids    []int32  // Terms as indexes into Analysis.idf (terms the turns lack left out)
	// Salient is the number of named entities and numbers; Dated says
	// whether the sentence holds a temporal expression.
	Salient int
	Dated   bool
	// Personal says whether the sentence holds a first-person pronoun
	// (the speaker telling of themselves); Asks whether it ends with a
	// question mark.
	Personal bool
	Asks     bool
}

// Analysis is the question- and budget-independent analysis of one
// conversation.
type Analysis struct {
	analyzer   *Analyzer
	unitsOnce  sync.Once
	wholesOnce sync.Once
	indexOnce  sync.Once
	index      *bm25.Index
	linesOnce  sync.Once
	lines      *bm25.Index
	wholeOnce  sync.Once
	whole      int
	medianOnce sync.Once
	median     int
	// wholeAtLeast is a lower bound of whole (the turns' lines less
	// lastPieceBound each), which spares counting a long conversation
	// whole against a small budget.
	wholeAtLeast int

	Conv   *swc.Conversation
	Turns  []TurnInfo
	First  []int // First[i] is the index in Turns of session i's first turn; First[len(Sessions)] = len(Turns)
	Header []int // header tokens per session
	// SessionTokens are the tokens of each session rendered whole.
	SessionTokens []int
	// IDF maps a term to its inverse document frequency over the turns,
	// ln(N / df).
	IDF map[string]float64
	// termID numbers the terms of the turns; idf[termID[t]] = IDF[t].
	termID map[string]int32
	idf    []float64
	// Docs are the turns' terms with repetition, for a BM25 index
	// (Docs[i] is Turns[i].Terms).
	Docs [][]string
}

// Analyzer computes and caches analyses. Anchor, Salient and Dated are
// optional (nil: no anchors, no salience counts, no dates); Terms splits a
// turn's text into its BM25 terms (nil: bm25.Terms; a memo of it in a
// process that analyses the same turns again and again). It is safe for
// concurrent use.
type Analyzer struct {
	Anchor  func(text string, ref time.Time) string
	Salient func(text string, speakers []string) int
	Dated   func(text string) bool
	Terms   func(text string) []string

	mu    sync.Mutex
	cache map[cacheKey]*Analysis
}

// cacheKey names a conversation by its first session's address, which
// the prefixes Conversation.Upto makes for replay share, and a session
// count.
type cacheKey struct {
	first *swc.Session
	n     int
}

// Analyze returns the analysis of c, computing it on first use. The cache
// is keyed by the address of c's sessions and their count, so c must not
// be modified after.
func (a *Analyzer) Analyze(c *swc.Conversation) *Analysis {
	var k cacheKey
	if len(c.Sessions) > 0 {
		k = cacheKey{first: &c.Sessions[0], n: len(c.Sessions)}
	}
	a.mu.Lock()
	if a.cache == nil {
		a.cache = map[cacheKey]*Analysis{}
	}
	if x, ok := a.cache[k]; ok && k.first != nil {
		a.mu.Unlock()
		return x
	}
	a.mu.Unlock()
	x := a.analyze(c)
	a.mu.Lock()
	a.cache[k] = x
	a.mu.Unlock()
	return x
}

// Forget drops the cached analyses of c and of its prefixes (Upto), so
// that a run over many conversations holds those in use only. Analyze
// computes them again if c comes back.
func (a *Analyzer) Forget(c *swc.Conversation) {
	if len(c.Sessions) == 0 {
		return
	}
	first := &c.Sessions[0]
	a.mu.Lock()
	defer a.mu.Unlock()
	for k := range a.cache {
		if k.first == first {
			delete(a.cache, k)
		}
	}
}

func (a *Analyzer) terms(text string) []string {
	if a.Terms != nil {
		return a.Terms(text)
	}
	return bm25.Terms(text)
}

func (a *Analyzer) analyze(c *swc.Conversation) *Analysis {
	x := &Analysis{analyzer: a, Conv: c, First: make([]int, len(c.Sessions)+1), Header: make([]int, len(c.Sessions)), SessionTokens: make([]int, len(c.Sessions))}
	x.termID = map[string]int32{}
	var df []int
	// turnSeen[id] and unitSeen[id] say which turn and unit last had term
	// id (numbered from 1), so that each lists a term once.
	var turnSeen, unitSeen []int32
	units := int32(0)
	for i := range c.Sessions {
		ses := &c.Sessions[i]
		x.First[i] = len(x.Turns)
		x.Header[i] = tokens.CountCached(SessionHeader(ses))
		for j, t := range ses.Turns {
			shown := t
			if a.Anchor != nil && !ses.Start.IsZero() {
				shown.Text = a.Anchor(t.Text, ses.Start)
			}
			line := swc.RenderTurn(shown)
			ti := TurnInfo{Session: i, Pos: j, Turn: shown, Line: line, Tokens: tokens.CountCached(line) + 1}
			ti.Prefix = tokens.CountCached(shown.Speaker+": ") + 1
			ti.Whole = Unit{Text: line[len(shown.Speaker)+2:], Tokens: ti.Tokens - ti.Prefix}
			x.wholeAtLeast += ti.Tokens - 1 - lastPieceBound(line)
			// The turn's terms are its sentences' in order: the terms of
			// its text without the speaker prefix, since no term spans
			// the space between two sentences (TestTurnTermsOfSentences).
			sents := turnSentences(shown)
			ti.Units = make([]Unit, len(sents))
			turn := int32(len(x.Turns) + 1)
			for k, st := range sents {
				units++
				terms := a.terms(st)
				if len(sents) == 1 {
					ti.Terms = terms // the memo's slice, not modified
				} else {
					ti.Terms = append(ti.Terms, terms...)
				}
				u := &ti.Units[k]
				u.Text = st
				for _, term := range terms {
					id, ok := x.termID[term]
					if !ok {
						id = int32(len(df))
						x.termID[term] = id
						df = append(df, 0)
						turnSeen, unitSeen = append(turnSeen, 0), append(unitSeen, 0)
					}
					if turnSeen[id] != turn {
						turnSeen[id] = turn
						df[id]++
						ti.Whole.Terms = append(ti.Whole.Terms, term)
						ti.Whole.ids = append(ti.Whole.ids, id)
					}
					if unitSeen[id] != units {
						unitSeen[id] = units
						u.Terms = append(u.Terms, term)
						u.ids = append(u.ids, id)
					}
				}
			}
			x.Turns = append(x.Turns, ti)
			x.Docs = append(x.Docs, ti.Terms)
		}
	}
	x.First[len(c.Sessions)] = len(x.Turns)
	for i := range c.Sessions {
		x.SessionTokens[i] = tokens.Session(&c.Sessions[i])
	}
	x.IDF = make(map[string]float64, len(df))
	x.idf = make([]float64, len(df))
	n := float64(len(x.Turns))
	for t, id := range x.termID {
		x.idf[id] = math.Log(n / float64(df[id]))
		x.IDF[t] = x.idf[id]
	}
	return x
}

// turnSentences returns the sentences of a turn as shown: its text's, and
// a shared image's caption as one of its own.
func turnSentences(shown swc.Turn) []string {
	sents := Sentences(oneLine(shown.Text))
	if shown.Image != nil && shown.Image.Caption != "" {
		sents = append(sents, "[shares an image: "+oneLine(shown.Image.Caption)+"]")
	}
	return sents
}

// lastPieceBound returns at least the tokens of the last pre-tokenizer
// piece of line (cl100k_base's expression; see package tokens): the bytes
// of its trailing white space or of its last word and the character
// before it (a piece is at most one character and a run of letters,
// digits, punctuation or white space). The last piece is the only one of
// line's that the text after it in a rendered context can change (it may
// take the line break), so a context's count is at least the sum of its
// lines' counts less these.
func lastPieceBound(line string) int {
	r, _ := utf8.DecodeLastRuneInString(line)
	white := unicode.IsSpace(r)
	i := len(line)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(line[:i])
		if unicode.IsSpace(r) != white {
			if !white {
				i -= n // the character a word's piece may begin with
			}
			break
		}
		i -= n
	}
	return len(line) - i
}

// Sentences splits text after ".", "!", "?" or "…" (and any run of them
// and closing quotes) followed by a space. Text without a boundary is one
// sentence; empty text has none.
func Sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		i += n
		if r != '.' && r != '!' && r != '?' && r != '…' {
			continue
		}
		for i < len(text) {
			r2, n2 := utf8.DecodeRuneInString(text[i:])
			if r2 != '.' && r2 != '!' && r2 != '?' && r2 != '…' && r2 != '"' && r2 != '”' && r2 != '\'' && r2 != ')' {
				break
			}
			i += n2
		}
		if i < len(text) && text[i] == ' ' {
			if s := strings.TrimSpace(text[start:i]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// SessionHeader returns the header line of session s in a selected context: its
// number and day, "[Session 3 — 9 June 2023]" (the clock time of
// swc.SessionHeader left out: it costs about 7 tokens a session and
// answers almost nothing), or swc.SessionHeader for a session without a
// start time.
func SessionHeader(s *swc.Session) string {
	if s.Start.IsZero() {
		return swc.SessionHeader(s)
	}
	return fmt.Sprintf("[Session %d — %s]", s.Index+1, s.Start.Format("2 January 2006"))
}

// personal reports whether text holds a first-person pronoun (I, my, me,
// we, our, …, with or without a contraction): a word (a run of letters
// and apostrophes) whose part before its first apostrophe is one,
// whatever its case.
func personal(text string) bool {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !wordRune(r) {
			i += n
			continue
		}
		j, cut, ascii := i, -1, true
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !wordRune(r) {
				break
			}
			if cut < 0 && (r == '\'' || r == '’') {
				cut = j
			}
			ascii = ascii && r < utf8.RuneSelf
			j += n
		}
		w := text[i:j]
		if cut >= 0 {
			w = text[i:cut]
		}
		if !ascii {
			w = strings.ToLower(w)
		}
		if firstPerson(w) {
			return true
		}
		i = j
	}
	return false
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || r == '\'' || r == '’' }

// firstPerson reports whether w, lowercased or plain ASCII of any case, is
// a first-person pronoun.
func firstPerson(w string) bool {
	if len(w) == 0 || len(w) > len("ourselves") {
		return false
	}
	var b [9]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	switch string(b[:len(w)]) {
	case "i", "my", "me", "mine", "myself", "we", "our", "us", "ours", "ourselves":
		return true
	}
	return false
}

// asks reports whether text ends with a question mark.
func asks(text string) bool { return strings.HasSuffix(strings.TrimSpace(text), "?") }

// oneLine returns s with its runs of white space made single spaces and
// its ends trimmed (the words of strings.Fields joined by spaces): s
// itself when it is so already.
func oneLine(s string) string {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return strings.Join(strings.Fields(s), " ")
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == ' ' && s[i+1] == ' ' || c != ' ' && asciiSpace(c) {
				return strings.Join(strings.Fields(s), " ")
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return strings.Join(strings.Fields(s), " ")
		}
		i += n
	}
	return s
}

func asciiSpace(c byte) bool {
	return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == ' '
}

// SentenceUnits fills the token counts and salience of every turn's
// Units (once; safe for concurrent use). Their texts and terms are the
// analysis's.
func (x *Analysis) SentenceUnits() {
	x.unitsOnce.Do(func() {
		speakers := []string{x.Conv.SpeakerA, x.Conv.SpeakerB}
		for i := range x.Turns {
			for k := range x.Turns[i].Units {
				u := &x.Turns[i].Units[k]
				u.Tokens = tokens.CountCached(u.Text) + 1
				x.salience(u, speakers, x.Turns[i].Turn.Speaker)
			}
		}
	})
}

// wholeUnits fills the salience of every turn's Whole unit (once; safe
// for concurrent use), which only a selection of whole turns values.
func (x *Analysis) wholeUnits() {
	x.wholesOnce.Do(func() {
		speakers := []string{x.Conv.SpeakerA, x.Conv.SpeakerB}
		for i := range x.Turns {
			x.salience(&x.Turns[i].Whole, speakers, x.Turns[i].Turn.Speaker)
		}
	})
}

// salience fills u's Salient, Dated, Personal and Asks; u is said by
// speaker. An assistant (Assistant) telling of itself is not personal:
// what is asked of an assistant's memory later is what the user told of
// themselves, and what the assistant said it can say again.
func (x *Analysis) salience(u *Unit, speakers []string, speaker string) {
	a := x.analyzer
	if a.Salient != nil {
		u.Salient = a.Salient(u.Text, speakers)
	}
	if a.Dated != nil {
		u.Dated = a.Dated(u.Text)
	}
	u.Personal, u.Asks = !Assistant(speaker) && personal(u.Text), asks(u.Text)
}

// Assistant reports whether speaker names the assistant of a user/assistant
// conversation: "assistant", whatever its case (LongMemEval's role, the
// chat package's speaker name for the assistant role). Conversations
// between people, LoCoMo's, have none.
func Assistant(speaker string) bool { return strings.EqualFold(speaker, "assistant") }

// Index returns the BM25 index over Docs, built on first use (safe for
// concurrent use).
func (x *Analysis) Index() *bm25.Index {
	x.indexOnce.Do(func() { x.index = bm25.New(x.Docs) })
	return x.index
}

// LineIndex returns the BM25 index over the turns' lines as shown, the
// speaker's name included (Index leaves it out), built on first use (safe
// for concurrent use).
func (x *Analysis) LineIndex() *bm25.Index {
	x.linesOnce.Do(func() {
		docs := make([][]string, len(x.Turns))
		for i := range x.Turns {
			docs[i] = bm25.Terms(x.Turns[i].Line)
		}
		x.lines = bm25.New(docs)
	})
	return x.lines
}

// fitsWhole reports whether budget holds the whole conversation
// (WholeTokens), counting it only when the lower bound does not already
// say no.
func (x *Analysis) fitsWhole(budget int) bool {
	return budget >= x.wholeAtLeast && budget >= x.WholeTokens()
}

// WholeTokens returns the tokens of the whole conversation rendered with
// every turn kept (headers, turn lines as shown), computed on first use
// (safe for concurrent use). A budget of at least this many tokens keeps
// every turn.
func (x *Analysis) WholeTokens() int {
	x.wholeOnce.Do(func() { x.whole = tokens.Count(x.all().render()) })
	return x.whole
}

// MedianTokens returns the median of the turns' Tokens (their lines'
// counts), computed on first use (safe for concurrent use); 0 without
// turns.
func (x *Analysis) MedianTokens() int {
	x.medianOnce.Do(func() {
		if len(x.Turns) == 0 {
			return
		}
		n := make([]int, len(x.Turns))
		for i := range x.Turns {
			n[i] = x.Turns[i].Tokens
		}
		slices.Sort(n)
		x.median = n[len(n)/2]
	})
	return x.median
}

// all returns the choice of every turn, whole.
func (x *Analysis) all() *choice {
	ch := newChoice(x, false)
	for u := range ch.kept {
		ch.kept[u] = true
	}
	return ch
}

// leastUnit returns the fewest tokens a unit of selection costs: a turn
// or, with sentences, a sentence (SentenceUnits made).
func (x *Analysis) leastUnit(sentences bool) int {
	least := 1 << 30
	for i := range x.Turns {
		if !sentences {
			least = min(least, x.Turns[i].Whole.Tokens)
			continue
		}
		for _, u := range x.Turns[i].Units {
			least = min(least, u.Tokens)
		}
	}
	return max(least, 1)
}
