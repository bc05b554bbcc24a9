package embed

import "testing"

// Expected stems are the outputs of Porter's reference implementation
// (tartarus.org/martin/PorterStemmer, voc.txt / output.txt) for these words.
func TestStem(t *testing.T) {
	tests := []struct{ in, want string }{
		{"caresses", "caress"}, {"ponies", "poni"}, {"ties", "ti"}, {"caress", "caress"},
		{"cats", "cat"}, {"feed", "feed"}, {"agreed", "agre"}, {"plastered", "plaster"},
		{"bled", "bled"}, {"motoring", "motor"}, {"sing", "sing"}, {"conflated", "conflat"},
		{"troubled", "troubl"}, {"sized", "size"}, {"hopping", "hop"}, {"tanned", "tan"},
		{"falling", "fall"}, {"hissing", "hiss"}, {"fizzed", "fizz"}, {"failing", "fail"},
		{"filing", "file"}, {"happy", "happi"}, {"sky", "sky"}, {"relational", "relat"},
		{"conditional", "condit"}, {"rational", "ration"}, {"generalizations", "gener"},
		{"oscillators", "oscil"}, {"running", "run"}, {"adjustment", "adjust"},
		{"effective", "effect"}, {"electrical", "electr"}, {"hopeful", "hope"},
		{"goodness", "good"}, {"replacement", "replac"}, {"adoption", "adopt"},
		{"communism", "commun"}, {"activate", "activ"}, {"controll", "control"},
		{"roll", "roll"}, {"cease", "ceas"}, {"rate", "rate"}, {"vileli", "vile"},
		{"dependent", "depend"}, {"allowance", "allow"}, {"inference", "infer"},
		{"airliner", "airlin"}, {"defensible", "defens"}, {"irritant", "irrit"},
		{"homologous", "homolog"}, {"bowdlerize", "bowdler"}, {"probate", "probat"},
		{"painting", "paint"}, {"paintings", "paint"}, {"adopted", "adopt"},
		{"counseling", "counsel"}, {"kids", "kid"}, {"went", "went"},
		// Left alone: short, non-ASCII, digits.
		{"is", "is"}, {"café", "café"}, {"2023", "2023"}, {"naïve", "naïve"},
	}
	for _, tt := range tests {
		if got := stem(tt.in); got != tt.want {
			t.Errorf("stem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
