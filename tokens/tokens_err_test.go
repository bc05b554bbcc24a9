package tokens

import (
	"errors"
	"strings"
	"testing"
)

// TestCountSurfacesEncoderErrors: when the encoder fails, Count does not
// fall back to a silent estimate below the truth: it returns the byte
// length (an upper bound: a token covers at least one byte), CountErr
// returns the error, and Err reports it for the process.
func TestCountSurfacesEncoderErrors(t *testing.T) {
	defer func(f func(string) (int, error)) { encodeCount = f }(encodeCount)
	defer resetErr()
	resetErr()
	encodeCount = func(s string) (int, error) { return 0, errors.New("regexp timeout") }
	s := "tokens tokens tokens tokens"
	if _, err := CountErr(s); err == nil || !strings.Contains(err.Error(), "regexp timeout") {
		t.Errorf("CountErr: %v, want the encoder's error", err)
	}
	if n := Count(s); n != len(s) {
		t.Errorf("Count on an encoder failure = %d, want the byte length %d (an upper bound)", n, len(s))
	}
	if err := Err(); err == nil || !strings.Contains(err.Error(), "regexp timeout") {
		t.Errorf("Err() = %v, want the encoder's error", err)
	}
	resetErr()
	encodeCount = func(s string) (int, error) { return 3, nil }
	if n, err := CountErr("abc"); n != 3 || err != nil || Err() != nil {
		t.Errorf("CountErr = %d, %v; Err %v", n, err, Err())
	}
}
