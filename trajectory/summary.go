package trajectory

import (
	"math"
	"slices"
	"sort"

	"github.com/swcmem/swc/chat"
)

// Settings are what a run was made with, recorded in summary.json.
type Settings struct {
	Data         string   `json:"data"`
	DataSHA256   string   `json:"data_sha256"`
	Trajectories []string `json:"trajectories"`
	// Skipped are the files of Data the bench could not read, each
	// with why (LoadSkipping).
	Skipped    []string `json:"skipped,omitempty"`
	Budgets    []int    `json:"budgets"`
	Conditions []string `json:"conditions"`
	Tokenizer  string   `json:"tokenizer"`
	Version    string   `json:"version"`
}

// Summary is summary.json: one cell per format, budget and condition.
type Summary struct {
	Settings Settings `json:"settings"`
	Formats  []string `json:"formats"`
	Cells    []Cell   `json:"cells"`
}

// A Cell sums up the rows of one format, budget and condition.
type Cell struct {
	Format    string `json:"format"`
	Budget    int    `json:"budget"`
	Condition string `json:"condition"`
	Requests  int    `json:"requests"`
	Refusals  int    `json:"refusals"`
	// Breaches counts the requests whose sent body breaks a provider rule
	// the condition broke (Row.Breaches); InputBreaches those whose
	// request as the agent sent it breaks one already.
	Breaches      int `json:"breaches"`
	InputBreaches int `json:"input_breaches"`
	OverBudget    int `json:"over_budget"`
	// FRR is the mean of the requests' forward-reference retention over
	// the FRRN requests with targets (refusals left out); NoTargets
	// requests had none. Pooled is Σretained/Σtargets over the same
	// requests.
	FRR       float64 `json:"frr"`
	FRRN      int     `json:"frr_n"`
	NoTargets int     `json:"no_targets"`
	Pooled    float64 `json:"frr_pooled"`
	// FRROver is the mean FRR over the FRROverN of those requests whose
	// uncompressed messages exceed the budget: those a compressor had to
	// change (the others fit, and every condition but masking sends them
	// whole).
	FRROver  float64 `json:"frr_over"`
	FRROverN int     `json:"frr_over_n"`
	// Recoverable FRR: the same means and pool of Row.RecoverableFRR
	// (targets in the sent text or behind a handle it shows; equal to FRR
	// for a condition that shows no handle). Misses counts the targets
	// that are neither, by why (MissCountLine, …).
	RecFRR     float64        `json:"recoverable_frr"`
	RecPooled  float64        `json:"recoverable_frr_pooled"`
	RecFRROver float64        `json:"recoverable_frr_over"`
	Misses     map[string]int `json:"unrecoverable,omitempty"`
	// ORR is the mean own-reference retention (Row.ORR) over the ORRN
	// requests with own targets: how much of what the next turn uses of
	// the agent's own earlier turns the request still shows.
	ORR  float64 `json:"orr"`
	ORRN int     `json:"orr_n"`
	// RawTokens and SentTokens are summed over the requests not refused;
	// Ratio is SentTokens/RawTokens.
	RawTokens  int64   `json:"raw_tokens"`
	SentTokens int64   `json:"sent_tokens"`
	Ratio      float64 `json:"tokens_ratio"`
	// Stable of Pairs consecutive requests (both compressed) kept the
	// previous request's sent list as their prefix (PrefixStable).
	Stable      int     `json:"stable"`
	Pairs       int     `json:"pairs"`
	StableShare float64 `json:"stable_share"`
	// CachedShare is the share of the message-list bytes (Anthropic
	// form: system and message content blocks, prefixUnits) of those
	// pairs' later requests that the earlier one sent byte for byte, in
	// the same leading positions: what a provider's prompt cache serves.
	CachedShare float64 `json:"cached_share"`
	// MarkCachedShare (Anthropic form) is the same share under
	// Anthropic's rules (Row.MarkCachedBytes): a prefix is served only up
	// to a content block an earlier request marked with cache_control.
	MarkCachedShare float64 `json:"mark_cached_share,omitempty"`
	// CostRatio is what the sent requests cost with prompt caching over
	// what the same requests as the agent sent them would have (Row.Cost
	// and Row.RawCost, summed over the requests not refused; 0 when a
	// row does not say, as rows written before the fields did not: a run
	// resumed over them has no ratio rather than one of its later
	// requests alone).
	CostRatio float64 `json:"cost_ratio"`
	// Compression time per request, milliseconds.
	WallP50 float64 `json:"wall_p50_ms"`
	WallP99 float64 `json:"wall_p99_ms"`
	CPUP50  float64 `json:"cpu_p50_ms"`
	CPUP99  float64 `json:"cpu_p99_ms"`
}

// Summarize sums rows up into cells, in the order of the formats as they
// first appear, then s.Budgets, then s.Conditions (rows of other budgets
// or conditions are left out).
func Summarize(s Settings, rows []Row) *Summary {
	type key struct {
		format, cond string
		budget       int
	}
	type acc struct {
		c          Cell
		frr, over  float64
		orr        float64
		rec, recOv float64
		ret, tgt   int
		recN       int
		wall, cpus []float64
		cached     float64
		marked     float64
		listed     float64
		cost, raw  float64
		unpriced   int // rows not refused that say no cost (written before the fields)
	}
	accs := map[key]*acc{}
	out := &Summary{Settings: s}
	for _, r := range rows {
		if !slices.Contains(out.Formats, r.Format) {
			out.Formats = append(out.Formats, r.Format)
		}
		k := key{r.Format, r.Condition, r.Budget}
		a := accs[k]
		if a == nil {
			a = &acc{c: Cell{Format: r.Format, Budget: r.Budget, Condition: r.Condition}}
			accs[k] = a
		}
		c := &a.c
		c.Requests++
		a.wall = append(a.wall, r.WallMS)
		a.cpus = append(a.cpus, r.CPUMS)
		if r.Stable != nil {
			c.Pairs++
			a.cached += float64(r.CachedBytes)
			a.marked += float64(r.MarkCachedBytes)
			a.listed += float64(r.ListBytes)
			if *r.Stable {
				c.Stable++
			}
		}
		if r.Refused != "" {
			c.Refusals++
			continue
		}
		if len(r.Breaches) > 0 {
			c.Breaches++
		}
		if len(r.InputBreaches) > 0 {
			c.InputBreaches++
		}
		if r.OverBudget {
			c.OverBudget++
		}
		c.RawTokens += int64(r.RawTokens)
		c.SentTokens += int64(r.SentTokens)
		a.cost += r.Cost
		a.raw += r.RawCost
		if r.RawCost == 0 {
			a.unpriced++
		}
		if o, ok := r.ORR(); ok {
			a.orr += o
			c.ORRN++
		}
		if f, ok := r.FRR(); ok {
			a.frr += f
			c.FRRN++
			a.ret += r.Retained
			a.tgt += r.Targets
			rf, _ := r.RecoverableFRR()
			a.rec += rf
			a.recN += r.Recoverable
			for _, m := range r.Unrecoverable {
				if c.Misses == nil {
					c.Misses = map[string]int{}
				}
				c.Misses[m.Why]++
			}
			if r.RawTokens > r.Budget {
				a.over += f
				a.recOv += rf
				c.FRROverN++
			}
		} else {
			c.NoTargets++
		}
	}
	for _, f := range out.Formats {
		for _, b := range s.Budgets {
			for _, cond := range s.Conditions {
				a := accs[key{f, cond, b}]
				if a == nil {
					continue
				}
				c := a.c
				c.FRR, c.Pooled = ratio(a.frr, float64(c.FRRN)), ratio(float64(a.ret), float64(a.tgt))
				c.FRROver = ratio(a.over, float64(c.FRROverN))
				c.ORR = ratio(a.orr, float64(c.ORRN))
				c.RecFRR, c.RecPooled = ratio(a.rec, float64(c.FRRN)), ratio(float64(a.recN), float64(a.tgt))
				c.RecFRROver = ratio(a.recOv, float64(c.FRROverN))
				c.Ratio = ratio(float64(c.SentTokens), float64(c.RawTokens))
				if a.unpriced == 0 {
					c.CostRatio = ratio(a.cost, a.raw)
				}
				c.StableShare = ratio(float64(c.Stable), float64(c.Pairs))
				c.CachedShare = ratio(a.cached, a.listed)
				if f == string(chat.Anthropic) {
					c.MarkCachedShare = ratio(a.marked, a.listed)
				}
				c.WallP50, c.WallP99 = Percentile(a.wall, 50), Percentile(a.wall, 99)
				c.CPUP50, c.CPUP99 = Percentile(a.cpus, 50), Percentile(a.cpus, 99)
				out.Cells = append(out.Cells, c)
			}
		}
	}
	return out
}

// ratio is a/b, 0 when b is 0 (the cell's count says there was nothing
// to divide).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Percentile returns the p-th percentile of xs by the nearest-rank method
// (0 for none).
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}
