package retry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

func TestTransport(t *testing.T) {
	var syntax error = &json.SyntaxError{Offset: 3}
	tests := []struct {
		err   error
		retry bool
		kind  string
	}{
		{context.Canceled, false, "canceled"},
		{fmt.Errorf("post: %w", context.DeadlineExceeded), true, KindTimeout},
		{&net.OpError{Op: "dial", Err: errors.New("connection refused")}, true, "connection error"},
		{io.ErrUnexpectedEOF, true, "connection error"},
		{fmt.Errorf("decode: %w", syntax), true, "malformed response"},
		{errors.New("something else"), false, "error"},
	}
	for _, tt := range tests {
		v := Transport(tt.err)
		if v.Retry != tt.retry || v.Kind != tt.kind {
			t.Errorf("Transport(%v) = %+v, want retry %v kind %q", tt.err, v, tt.retry, tt.kind)
		}
	}
}

func TestRetryableStatus(t *testing.T) {
	for status, want := range map[int]bool{400: false, 401: false, 404: false, 408: true, 409: true, 422: false, 429: true, 500: true, 503: true, 529: true} {
		if RetryableStatus(status) != want {
			t.Errorf("RetryableStatus(%d) = %v", status, !want)
		}
	}
	if Clip("  abcdef  ", 3) != "abc…" || Clip("ab", 3) != "ab" {
		t.Error("Clip")
	}
}

func TestAPI(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := http.Header{"Retry-After": []string{"3"}}
	for _, tt := range []struct {
		status         int
		kind, msg, raw string
		h              http.Header
		want           Verdict
	}{
		{529, "overloaded_error", "Overloaded", "", h, Verdict{Status: 529, Kind: "overloaded_error", Msg: "Overloaded", Retry: true, After: 3 * time.Second}},
		{400, "", "", ` {"error":"bad"} `, nil, Verdict{Status: 400, Kind: "bad request", Msg: `{"error":"bad"}`}},
		{429, "rate_limit_error", "slow down", "", nil, Verdict{Status: 429, Kind: "rate_limit_error", Msg: "slow down", Retry: true}},
		// x-should-retry overrides the status, both ways; the request id is kept.
		{500, "server_error", "boom", "", http.Header{"X-Should-Retry": {"false"}, "X-Request-Id": {"req_1"}},
			Verdict{Status: 500, Kind: "server_error", Msg: "boom", RequestID: "req_1"}},
		{400, "invalid_request_error", "try again", "", http.Header{"X-Should-Retry": {"true"}, "Request-Id": {"req_ant"}},
			Verdict{Status: 400, Kind: "invalid_request_error", Msg: "try again", Retry: true, RequestID: "req_ant"}},
		{503, "", "x", "", http.Header{"X-Should-Retry": {"maybe"}}, Verdict{Status: 503, Kind: "service unavailable", Msg: "x", Retry: true}},
	} {
		if got := API(tt.status, tt.kind, tt.msg, tt.raw, tt.h, now); got != tt.want {
			t.Errorf("API(%d, %q, %q) = %+v, want %+v", tt.status, tt.kind, tt.msg, got, tt.want)
		}
	}
}
