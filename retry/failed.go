package retry

import (
	"fmt"
	"strings"

	"github.com/swcmem/swc"
)

// Failed returns the error of a call to provider's model that failed for
// good after n attempts with Verdict v and last error err. Its text is
// "PROVIDER: MODEL: status N KIND after n attempts: MSG", with the
// request's URL after the model for transport errors and the provider's
// request id, when it sent one, at the end; it is an
// *swc.Error with code EINVALID for a 4xx that is not retried and
// EUNAVAILABLE otherwise, and errors.Is/As also find err through it.
func Failed(provider, model string, n int, v Verdict, err error) error {
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
	at := ""
	if v.URL != "" {
		at = " (" + v.URL + ")"
	}
	msg := fmt.Sprintf("%s: %s%s: %s after %d attempt%s", provider, model, at, what, n, plural)
	if v.Msg != "" && !strings.Contains(what, v.Msg) {
		msg += ": " + v.Msg
	}
	if v.RequestID != "" {
		msg += " (request id " + v.RequestID + ")"
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
