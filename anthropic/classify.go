package anthropic

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/swcmem/swc/retry"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

// classify decides whether a failed attempt is worth retrying: 408, 409,
// 429, 5xx (529 overloaded included), timeouts, connection errors and
// truncated or malformed response bodies are; other 4xx, cancellation and
// anything else are not. now resolves a Retry-After HTTP date.
func classify(err error, now time.Time) retry.Verdict {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		v := retry.Verdict{Status: apiErr.StatusCode, Kind: string(apiErr.Type()), Msg: apiErr.Message}
		if v.Kind == "" {
			v.Kind = strings.ToLower(http.StatusText(v.Status))
		}
		if v.Msg == "" {
			v.Msg = retry.Clip(apiErr.RawJSON(), 200)
		}
		v.Retry = retry.RetryableStatus(v.Status)
		if apiErr.Response != nil {
			v.After, _ = retry.After(apiErr.Response.Header, now)
		}
		return v
	}
	return retry.Transport(err)
}
