package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/swc-project/swc/retry"

	"github.com/openai/openai-go/v3"
)

// classify decides whether a failed attempt is worth retrying: 408, 409,
// 429, 5xx (and the 529 some gateways send), timeouts, connection errors and
// truncated or malformed response bodies are; other 4xx, cancellation and
// anything else are not. now resolves a Retry-After HTTP date.
func classify(err error, now time.Time) retry.Verdict {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		v := retry.Verdict{Status: apiErr.StatusCode, Kind: apiErr.Type, Msg: apiErr.Message}
		if v.Kind == "" {
			v.Kind = apiErr.Code
		}
		if v.Kind == "" {
			v.Kind = strings.ToLower(http.StatusText(v.Status))
		}
		if v.Msg == "" {
			v.Msg = clip(apiErr.RawJSON(), 200)
		}
		v.Retry = retryableStatus(v.Status)
		if apiErr.Response != nil {
			v.After, _ = retry.After(apiErr.Response.Header, now)
		}
		return v
	}
	var (
		netErr    net.Error
		syntaxErr *json.SyntaxError
	)
	switch {
	case errors.Is(err, context.Canceled):
		return retry.Verdict{Kind: "canceled", Msg: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return retry.Verdict{Retry: true, Kind: retry.KindTimeout, Msg: err.Error()}
	case errors.As(err, &netErr), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return retry.Verdict{Retry: true, Kind: "connection error", Msg: err.Error()}
	case errors.As(err, &syntaxErr):
		return retry.Verdict{Retry: true, Kind: "malformed response", Msg: err.Error()}
	}
	return retry.Verdict{Kind: "error", Msg: err.Error()}
}

// retryableStatus reports whether an HTTP status is transient.
func retryableStatus(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
