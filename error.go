package swc

import (
	"errors"
	"fmt"
)

// Error codes. Callers branch on them with ErrorCode.
const (
	EINVALID     = "invalid"     // bad input: malformed data, wrong flags
	ENOTFOUND    = "not_found"   // a named conversation, file or entry does not exist
	EUNAVAILABLE = "unavailable" // a provider could not be reached or kept failing
	ECONFLICT    = "conflict"    // a concurrent change got there first: read again and retry
	EINTERNAL    = "internal"    // a bug
)

// Error is the one coded error type of the project.
type Error struct {
	Code    string
	Message string
}

// Error implements error: the message alone (the code is for callers that
// branch, see ErrorCode).
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrBudgetTooSmall is in the chain of the error a strategy returns for a
// budget below what its emptiest context (its omission marker) costs
// (BudgetErrorf): a caller with other messages to send may send them
// without the memory rather than fail.
var ErrBudgetTooSmall = errors.New("budget below an empty context")

// BudgetErrorf returns an EINVALID error whose chain holds
// ErrBudgetTooSmall, its message formatted.
func BudgetErrorf(format string, args ...any) error {
	return budgetError{Errorf(EINVALID, format, args...)}
}

// budgetError is an *Error that is also ErrBudgetTooSmall.
type budgetError struct{ e *Error }

func (b budgetError) Error() string   { return b.e.Message }
func (b budgetError) Unwrap() []error { return []error{b.e, ErrBudgetTooSmall} }

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the first *Error in err's chain, or
// err.Error() otherwise.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
