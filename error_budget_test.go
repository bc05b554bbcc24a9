package swc_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/swcmem/swc"
)

// TestBudgetErrorf: a budget error is an EINVALID error with its message
// as it was, and ErrBudgetTooSmall, through any wrapping.
func TestBudgetErrorf(t *testing.T) {
	err := fmt.Errorf("memory: %w", swc.BudgetErrorf("a budget of %d tokens is below the %d of a context that keeps nothing", 10, 12))
	if swc.ErrorCode(err) != swc.EINVALID || !errors.Is(err, swc.ErrBudgetTooSmall) ||
		swc.ErrorMessage(err) != "a budget of 10 tokens is below the 12 of a context that keeps nothing" {
		t.Errorf("code %q, is ErrBudgetTooSmall %v, message %q", swc.ErrorCode(err), errors.Is(err, swc.ErrBudgetTooSmall), swc.ErrorMessage(err))
	}
	if errors.Is(swc.Errorf(swc.EINVALID, "bad"), swc.ErrBudgetTooSmall) {
		t.Error("any EINVALID error is ErrBudgetTooSmall")
	}
}
