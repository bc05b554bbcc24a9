package anthropic

import (
	"errors"
	"net/http"
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
		var h http.Header
		if apiErr.Response != nil {
			h = apiErr.Response.Header
		}
		return retry.API(apiErr.StatusCode, string(apiErr.Type()), apiErr.Message, apiErr.RawJSON(), h, now)
	}
	return retry.Transport(err)
}
