package retry

import (
	"context"
	"errors"
	"testing"

	"github.com/swcmem/swc"
)

func TestFailed(t *testing.T) {
	cause := errors.New("last attempt")
	tests := []struct {
		name     string
		n        int
		v        Verdict
		wantCode string
		wantText string
	}{
		{"retries ran out", 5, Verdict{Retry: true, Status: 529, Kind: "overloaded_error", Msg: "Overloaded"}, swc.EUNAVAILABLE,
			"p: m: status 529 overloaded_error after 5 attempts: Overloaded"},
		{"4xx not retried", 1, Verdict{Status: 400, Kind: "invalid_request_error", Msg: "bad"}, swc.EINVALID,
			"p: m: status 400 invalid_request_error after 1 attempt: bad"},
		{"429 is unavailable", 3, Verdict{Retry: true, Status: 429, Kind: "rate_limit_error"}, swc.EUNAVAILABLE,
			"p: m: status 429 rate_limit_error after 3 attempts"},
		{"status without kind", 2, Verdict{Retry: true, Status: 599, Msg: "<html>"}, swc.EUNAVAILABLE,
			"p: m: status 599 after 2 attempts: <html>"},
		{"transport", 3, Verdict{Retry: true, Kind: "connection error", Msg: "refused"}, swc.EUNAVAILABLE,
			"p: m: connection error after 3 attempts: refused"},
		{"request id", 1, Verdict{Status: 400, Kind: "invalid_request_error", Msg: "bad", RequestID: "req_9"}, swc.EINVALID,
			"p: m: status 400 invalid_request_error after 1 attempt: bad (request id req_9)"},
		{"msg already in kind", 1, Verdict{Kind: "error", Msg: "error"}, swc.EUNAVAILABLE,
			"p: m: error after 1 attempt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Failed("p", "m", tt.n, tt.v, cause)
			if swc.ErrorCode(err) != tt.wantCode || err.Error() != tt.wantText {
				t.Errorf("got %q (code %s), want %q (code %s)", err, swc.ErrorCode(err), tt.wantText, tt.wantCode)
			}
			var coded *swc.Error
			if !errors.Is(err, cause) || !errors.As(err, &coded) {
				t.Errorf("%v does not wrap the cause and an *swc.Error", err)
			}
		})
	}
	if err := Failed("p", "m", 1, Verdict{Kind: KindInterrupted}, context.Canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted: %v does not wrap context.Canceled", err)
	}
}
