package mention

// numbers returns digit sequences (with inner "," or "." joining digits, as
// in 1,000 or 3.5) and cardinal number words. "one" after a determiner
// ("this one", "the one") is a pronoun and is skipped.
func numbers(text string, toks []tok) []Mention {
	var out []Mention
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.cls == tNum:
			j := i + 1
			for j+1 < len(toks) && (toks[j].low == "," || toks[j].low == ".") && !toks[j].space &&
				toks[j+1].cls == tNum && !toks[j+1].space {
				j += 2
			}
			out = append(out, Mention{Kind: Number, Text: text[t.s:toks[j-1].e], Start: t.s, End: toks[j-1].e})
			i = j - 1
		case t.cls == tWord && t.num >= 0:
			if t.low == "one" && (i > 0 && oneDeterminers[toks[i-1].low] || i+1 < len(toks) && (toks[i+1].low == "another" || toks[i+1].low == "'s")) {
				continue
			}
			j := i + 1
			for j < len(toks) && toks[j].cls == tWord && toks[j].num >= 0 && toks[j].low != "one" ||
				j+1 < len(toks) && toks[j].low == "-" && !toks[j].space && toks[j+1].cls == tWord && toks[j+1].num > 0 && !toks[j+1].space {
				if toks[j].low == "-" {
					j++
				}
				j++
			}
			out = append(out, Mention{Kind: Number, Text: text[t.s:toks[j-1].e], Start: t.s, End: toks[j-1].e})
			i = j - 1
		}
	}
	return out
}

var oneDeterminers = map[string]bool{"this": true, "that": true, "the": true, "which": true, "every": true, "each": true,
	"no": true, "any": true, "some": true, "another": true, "a": true, "favorite": true, "favourite": true, "new": true,
	"only": true, "little": true, "big": true, "last": true, "next": true, "first": true, "right": true, "special": true,
	"same": true, "other": true, "loved": true, "sweet": true, "good": true, "great": true, "cute": true, "old": true,
	"someone": false, "no-one": true, "anyone": false, "my": true, "your": true, "his": true, "her": true, "our": true,
	"their": true, "its": true, "wrong": true, "real": true, "lucky": true, "amazing": true, "beautiful": true}
