package locomo

import (
	"github.com/swc-project/swc"
)

// Sample returns the built-in sample conversation. TEMPORARY until sample.json lands.
func Sample() ([]*swc.Conversation, error) {
	c, _, err := Parse([]byte(`[{"sample_id":"tmp","conversation":{"speaker_a":"A","speaker_b":"B","session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[{"speaker":"A","dia_id":"D1:1","text":"I ran a race last Sunday."}]},"qa":[]}]`), "sample.json")
	return c, err
}
