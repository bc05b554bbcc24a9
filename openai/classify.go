package openai

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/swcmem/swc/retry"
)

// classify decides whether a failed attempt is worth retrying: 408, 409,
// 429, 5xx (and the 529 some gateways send), timeouts, connection errors and
// truncated or malformed response bodies are; other 4xx, cancellation and
// anything else are not. now resolves a Retry-After HTTP date.
func classify(err error, now time.Time) retry.Verdict {
	var apiErr *apiError
	if errors.As(err, &apiErr) {
		v := retry.Verdict{Status: apiErr.Status, Kind: apiErr.Type, Msg: apiErr.Message}
		if v.Kind == "" {
			v.Kind = apiErr.Code
		}
		if v.Kind == "" {
			v.Kind = strings.ToLower(http.StatusText(v.Status))
		}
		if v.Msg == "" {
			v.Msg = retry.Clip(apiErr.Raw, 200)
		}
		v.Retry = retry.RetryableStatus(v.Status)
		v.After, _ = retry.After(apiErr.Header, now)
		return v
	}
	return retry.Transport(err)
}
