package chat

import (
	"bytes"
	"testing"
)

// TestResponsesOutputCannotHoldStub: an object output (a screenshot) is
// never overwritten by text.
func TestResponsesOutputCannotHoldStub(t *testing.T) {
	raw := []byte(`{"type":"computer_call_output","call_id":"c","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,AA=="}}`)
	if _, err := responsesOutput(raw, raw[bytes.Index(raw, []byte(`{"type":"computer_screenshot`)):len(raw)-1], "stub"); err == nil {
		t.Error("a screenshot output took a stub")
	}
}
