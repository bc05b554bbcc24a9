package locomo

import (
	_ "embed"
	"fmt"

	"github.com/swcmem/swc"
)

//go:embed sample.json
var sampleJSON []byte

// SampleName is the file name the sample is reported under.
const SampleName = "sample.json (built-in)"

// Sample returns the built-in sample conversation: one conversation of 12
// sessions over six months of 2024 between Maya and Jonas, with 60
// questions in all five categories, written for this project in LoCoMo's
// format. Each call returns a fresh copy. The error is non-nil only if the
// embedded file is broken, which the tests rule out.
func Sample() ([]*swc.Conversation, error) {
	convs, warns, err := Parse(sampleJSON, SampleName)
	if err == nil && len(warns) > 0 {
		err = fmt.Errorf("locomo: %s: %s", SampleName, warns[0])
	}
	return convs, err
}

// SampleJSON returns the raw embedded sample, in LoCoMo's format.
func SampleJSON() []byte { return append([]byte(nil), sampleJSON...) }
