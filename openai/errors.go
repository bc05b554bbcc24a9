package openai

import (
	"fmt"
	"strings"

	"github.com/swc-project/swc"
)

// failed builds the error of a call to provider's model that failed for
// good after n attempts: EINVALID for a 4xx that is not retried,
// EUNAVAILABLE otherwise.
func failed(provider, model string, n int, v verdict, err error) error {
	code := swc.EUNAVAILABLE
	if v.Status >= 400 && v.Status < 500 && !v.Retry {
		code = swc.EINVALID
	}
	what := v.Kind
	if v.Status != 0 {
		what = strings.TrimSpace(fmt.Sprintf("status %d %s", v.Status, v.Kind))
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	msg := fmt.Sprintf("%s: %s: %s after %d attempt%s", provider, model, what, n, plural)
	if v.Msg != "" && !strings.Contains(what, v.Msg) {
		msg += ": " + v.Msg
	}
	return &failure{coded: &swc.Error{Code: code, Message: msg}, cause: err}
}

// failure is the error of a failed call: the coded *swc.Error, which gives
// the text, and the last attempt's error, for errors.Is and errors.As.
type failure struct {
	coded *swc.Error
	cause error
}

func (f *failure) Error() string   { return f.coded.Error() }
func (f *failure) Unwrap() []error { return []error{f.coded, f.cause} }
