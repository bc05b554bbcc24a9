package chat

import (
	_ "embed"

	"github.com/swcmem/swc"
)

//go:embed sample.jsonl
var sampleJSONL []byte

// SampleName is the name the built-in assistant sample is reported under.
const SampleName = "assistant sample (built-in)"

// Sample returns the built-in assistant conversation, written for this
// project: Dana and her assistant Sol over six weeks of March–April 2025
// (a move, a dentist visit, a 10K race, a conference trip to Lisbon), in
// OpenAI's format with a system prompt, RFC 3339 timestamps, tool calls
// with their results, and relative dates ("yesterday", "next weekend",
// "last Tuesday") to be anchored against each session's date. Each call
// returns a fresh copy; the error is non-nil only if the embedded file is
// broken, which the tests rule out.
func Sample() ([]swc.Message, error) {
	in, err := Parse(sampleJSONL, OpenAI)
	if err != nil {
		return nil, err
	}
	return in.Messages, nil
}

// SampleJSONL returns the raw embedded sample: OpenAI messages, one a line.
func SampleJSONL() []byte { return append([]byte(nil), sampleJSONL...) }
