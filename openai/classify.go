package openai

import (
	"errors"
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
		kind := apiErr.Type
		if kind == "" {
			kind = apiErr.Code
		}
		return retry.API(apiErr.Status, kind, apiErr.Message, apiErr.Raw, apiErr.Header, now)
	}
	return retry.Transport(err)
}
