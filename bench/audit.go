package bench

import (
	"context"
	"errors"

	"github.com/swc-project/swc"
)

// AuditJudge asks the judge about n sampled questions with deliberately
// wrong answers. Not yet implemented.
func AuditJudge(ctx context.Context, judge swc.LLM, convs []*swc.Conversation, n int, seed uint64) (*JudgeAudit, error) {
	return nil, errors.New("bench: judge audit not implemented yet")
}
