package bench

import (
	"strings"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/porter"
)

// F1 returns LoCoMo's score for one answer, as eval_question_answering in
// LoCoMo's task_eval/evaluation.py computes it per category:
//   - multi-hop (1): MultiF1(prediction, gold);
//   - temporal (2), single-hop (4): TokenF1(prediction, gold);
//   - open-domain (3): TokenF1 against the gold's first ';' alternative,
//     whitespace-trimmed;
//   - adversarial (5): 1 when the lower-cased prediction contains "no
//     information available" or "not mentioned", else 0.
//
// gold is the answer as Python's str() renders it (LoCoMo stores a few
// answers as JSON numbers: 2022 is "2022"). It returns an EINVALID error
// for any other category, where LoCoMo raises ValueError.
func F1(cat swc.Category, prediction, gold string) (float64, error) {
	switch cat {
	case swc.MultiHop:
		return MultiF1(prediction, gold), nil
	case swc.Temporal, swc.SingleHop:
		return TokenF1(prediction, gold), nil
	case swc.OpenDomain:
		gold, _, _ = strings.Cut(gold, ";")
		return TokenF1(prediction, strings.TrimSpace(gold)), nil
	case swc.Adversarial:
		p := strings.ToLower(prediction)
		if strings.Contains(p, "no information available") || strings.Contains(p, "not mentioned") {
			return 1, nil
		}
		return 0, nil
	}
	return 0, swc.Errorf(swc.EINVALID, "bench: f1: unknown category %d", int(cat))
}

// TokenF1 returns LoCoMo's f1_score: the harmonic mean of precision and
// recall of the multiset of Porter-stemmed normalised tokens of prediction
// against those of gold. It is 0 when they share no token, which includes
// an empty prediction or gold.
func TokenF1(prediction, gold string) float64 {
	return tokenF1(stemTokens(prediction), stemTokens(gold))
}

// MultiF1 returns LoCoMo's multi-answer f1: prediction and gold are split
// on commas, and the result is the mean, over the gold parts, of the best
// TokenF1 of any prediction part against that gold part.
func MultiF1(prediction, gold string) float64 {
	var preds [][]string
	for _, p := range strings.Split(prediction, ",") {
		preds = append(preds, stemTokens(p))
	}
	golds := strings.Split(gold, ",")
	sum := 0.0
	for _, g := range golds {
		gt := stemTokens(g)
		best := 0.0
		for _, pt := range preds {
			best = max(best, tokenF1(pt, gt))
		}
		sum += best
	}
	return sum / float64(len(golds))
}

// stemTokens returns ps.stem(w) for each w in normalize_answer(s).split().
func stemTokens(s string) []string {
	toks := Tokens(s)
	for i, t := range toks {
		toks[i] = porter.Stem(t)
	}
	return toks
}

// tokenF1 is f1_score over already stemmed tokens.
func tokenF1(pred, gold []string) float64 {
	if len(pred) == 0 || len(gold) == 0 {
		return 0
	}
	counts := make(map[string]int, len(gold))
	for _, g := range gold {
		counts[g]++
	}
	same := 0
	for _, p := range pred {
		if counts[p] > 0 {
			counts[p]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	precision := float64(same) / float64(len(pred))
	recall := float64(same) / float64(len(gold))
	return 2 * precision * recall / (precision + recall)
}
