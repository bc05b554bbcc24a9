package porter

import "testing"

// porterCases are NLTK PorterStemmer() (NLTK_EXTENSIONS) outputs. The first
// 20 are from NLTK's own documentation and tests (the stem.doctest word
// list and test_oed_bug); the rest were worked through the NLTK rules by
// hand for the tricky ones and checked against a line-by-line transcription
// of nltk/stem/porter.py run under Python.
var porterCases = []struct{ word, stem string }{
	{"caresses", "caress"}, {"flies", "fli"}, {"dies", "die"}, {"mules", "mule"},
	{"denied", "deni"}, {"died", "die"}, {"agreed", "agre"}, {"owned", "own"},
	{"humbled", "humbl"}, {"sized", "size"}, {"meetings", "meet"}, {"stating", "state"},
	{"siezing", "siez"}, {"itemization", "item"}, {"sensational", "sensat"},
	{"traditional", "tradit"}, {"reference", "refer"}, {"colonizer", "colon"},
	{"plotted", "plot"}, {"oed", "o"},
	{"they", "they"}, {"was", "wa"}, {"this", "thi"}, {"dying", "die"},
	{"lying", "lie"}, {"tying", "tie"}, {"skies", "sky"}, {"sky", "sky"},
	{"news", "news"}, {"innings", "inning"}, {"outings", "outing"}, {"cannings", "canning"},
	{"outing", "outing"}, {"proceed", "proceed"}, {"exceed", "exceed"}, {"succeed", "succeed"},
	{"howe", "howe"}, {"is", "is"}, {"as", "as"}, {"us", "us"},
	{"a", "a"}, {"by", "by"}, {"running", "run"}, {"played", "play"},
	{"happy", "happi"}, {"enjoy", "enjoy"}, {"spy", "spi"}, {"fly", "fli"},
	{"try", "tri"}, {"cry", "cri"}, {"generously", "gener"}, {"relational", "relat"},
	{"conditional", "condit"}, {"rational", "ration"}, {"valenci", "valenc"}, {"hesitanci", "hesit"},
	{"digitizer", "digit"}, {"conformabli", "conform"}, {"radicalli", "radic"}, {"differentli", "differ"},
	{"vileli", "vile"}, {"analogousli", "analog"}, {"vietnamization", "vietnam"}, {"predication", "predic"},
	{"operator", "oper"}, {"feudalism", "feudal"}, {"decisiveness", "decis"}, {"hopefulness", "hope"},
	{"callousness", "callous"}, {"formaliti", "formal"}, {"sensitiviti", "sensit"}, {"sensibiliti", "sensibl"},
	{"triplicate", "triplic"}, {"formative", "form"}, {"formalize", "formal"}, {"electriciti", "electr"},
	{"electrical", "electr"}, {"hopeful", "hope"}, {"goodness", "good"}, {"revival", "reviv"},
	{"allowance", "allow"}, {"inference", "infer"}, {"airliner", "airlin"}, {"gyroscopic", "gyroscop"},
	{"adjustable", "adjust"}, {"defensible", "defens"}, {"irritant", "irrit"}, {"replacement", "replac"},
	{"adjustment", "adjust"}, {"dependent", "depend"}, {"adoption", "adopt"}, {"homologou", "homolog"},
	{"communism", "commun"}, {"activate", "activ"}, {"angulariti", "angular"}, {"homologous", "homolog"},
	{"effective", "effect"}, {"bowdlerize", "bowdler"}, {"probate", "probat"}, {"rate", "rate"},
	{"cease", "ceas"}, {"controll", "control"}, {"roll", "roll"}, {"feed", "feed"},
	{"agreed", "agre"}, {"plastered", "plaster"}, {"bled", "bled"}, {"motoring", "motor"},
	{"sing", "sing"}, {"conflated", "conflat"}, {"troubled", "troubl"}, {"hopping", "hop"},
	{"tanned", "tan"}, {"falling", "fall"}, {"hissing", "hiss"}, {"fizzed", "fizz"},
	{"failing", "fail"}, {"filing", "file"}, {"archaeology", "archaeolog"}, {"geology", "geolog"},
	{"theology", "theolog"}, {"beautifully", "beauti"}, {"hopefully", "hope"}, {"ponies", "poni"},
	{"ties", "tie"}, {"caress", "caress"}, {"cats", "cat"}, {"studies", "studi"},
	{"studied", "studi"}, {"spied", "spi"}, {"lies", "lie"}, {"2022", "2022"},
	{"yes", "ye"}, {"yesterday", "yesterday"}, {"museum", "museum"}, {"lgbtq", "lgbtq"},
	{"camping", "camp"}, {"pottery", "potteri"}, {"painting", "paint"}, {"painted", "paint"},
	{"paints", "paint"}, {"counseling", "counsel"}, {"kids", "kid"}, {"children", "children"},
	{"transgender", "transgend"}, {"sunrise", "sunris"}, {"hiking", "hike"}, {"june", "june"},
	{"saturday", "saturday"}, {"weeks", "week"}, {"mother", "mother"}, {"grandmother", "grandmoth"},
	{"dancing", "danc"}, {"danced", "danc"}, {"swimming", "swim"}, {"guitar", "guitar"},
	{"DYING", "dy"}, {"Running", "run"}, {"eyes", "eye"}, {"ice", "ice"},
	{"use", "use"}, {"are", "are"}, {"eve", "eve"}, {"ore", "ore"},
	{"oed", "o"},
}

func TestStem(t *testing.T) {
	if len(porterCases) < 80 {
		t.Fatalf("only %d cases", len(porterCases))
	}
	for _, c := range porterCases {
		if got := Stem(c.word); got != c.stem {
			t.Errorf("Stem(%q) = %q, want %q", c.word, got, c.stem)
		}
	}
}

func TestStemShortAndEmpty(t *testing.T) {
	for _, w := range []string{"", "a", "is", "Is", "ü", "wa"} {
		want := w
		if w == "Is" {
			want = "is"
		}
		if got := Stem(w); got != want {
			t.Errorf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
}

func BenchmarkStem(b *testing.B) {
	for b.Loop() {
		for _, c := range porterCases {
			Stem(c.word)
		}
	}
}
