package main

import (
	"github.com/swcmem/swc"
	"github.com/swcmem/swc/bench"
	"github.com/swcmem/swc/preserve"
	"github.com/swcmem/swc/report"
)

// writeReports writes summary.csv, report.md and report.html.
func writeReports(dir string, sum *bench.Summary) error { return report.WriteAll(dir, sum) }

// preservation returns the preservation analysis of the gists in
// contexts, or nil when no condition made any.
func preservation(convs []*swc.Conversation, contexts bench.Contexts) *preserve.Report {
	rep := preserve.Analyze(convs, contexts)
	if !rep.HasGists() {
		return nil
	}
	return rep
}
