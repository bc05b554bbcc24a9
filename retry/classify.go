package retry

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// RetryableStatus reports whether an HTTP status is transient: 408, 409,
// 429 and every 5xx (Anthropic's 529 overloaded included).
func RetryableStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// API classifies a provider's API error from what its SDK reports: the
// status, the error's kind ("rate_limit_error"; the status text when
// empty), its message (the raw body clipped to 200 bytes when empty) and
// the response headers (nil when there is no response). It is retried
// when RetryableStatus says so, unless the server said otherwise with
// "x-should-retry: true" or "false" (OpenAI's and Anthropic's APIs send
// it, and their SDKs obey it); Retry-After sets the wait, and the
// request id (x-request-id, or Anthropic's request-id) is kept for the
// error text. The one place adapters' API errors become a Verdict.
func API(status int, kind, msg, raw string, h http.Header, now time.Time) Verdict {
	v := Verdict{Status: status, Kind: kind, Msg: msg}
	if v.Kind == "" {
		v.Kind = strings.ToLower(http.StatusText(status))
	}
	if v.Msg == "" {
		v.Msg = Clip(raw, 200)
	}
	v.Retry = RetryableStatus(status)
	if h != nil {
		v.After, _ = After(h, now)
		switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
		case "true":
			v.Retry = true
		case "false":
			v.Retry = false
		}
		v.RequestID = h.Get("X-Request-Id")
		if v.RequestID == "" {
			v.RequestID = h.Get("Request-Id")
		}
	}
	return v
}

// Transport classifies an error that is not a provider's API error:
// deadlines, connection errors and truncated or malformed bodies are
// retried; cancellation and anything else are not. Adapters call it after
// recognising their SDK's API error type.
func Transport(err error) Verdict {
	var (
		netErr    net.Error
		syntaxErr *json.SyntaxError
		urlErr    *url.Error
	)
	msg, where := err.Error(), ""
	if errors.As(err, &urlErr) { // `Post "URL": cause`: the URL goes in its own field
		msg, where = urlErr.Err.Error(), urlErr.URL
	}
	switch {
	case errors.Is(err, context.Canceled):
		return Verdict{Kind: "canceled", Msg: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return Verdict{Retry: true, Kind: KindTimeout, Msg: msg, URL: where}
	case errors.As(err, &netErr), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return Verdict{Retry: true, Kind: "connection error", Msg: msg, URL: where}
	case errors.As(err, &syntaxErr):
		return Verdict{Retry: true, Kind: "malformed response", Msg: err.Error()}
	}
	return Verdict{Kind: "error", Msg: err.Error()}
}

// Clip trims s and cuts it to n bytes, marking the cut with "…".
func Clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
