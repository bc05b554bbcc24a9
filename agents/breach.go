package agents

import "fmt"

// Breach is one broken provider rule in a request the upstream received.
type Breach struct {
	Request int    // the upstream's request number, from 1
	Rule    string // short name of the rule ("tool-result-missing", …)
	Detail  string // what was wrong, naming the message or item
}

func (b Breach) String() string {
	return fmt.Sprintf("request %d: %s: %s", b.Request, b.Rule, b.Detail)
}

// breaches collects the breaches of one request.
type breaches []Breach

func (bs *breaches) add(rule, format string, args ...any) {
	*bs = append(*bs, Breach{Rule: rule, Detail: fmt.Sprintf(format, args...)})
}
