package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/swcmem/swc/bench"
)

// CSV writes s as summary.csv: a header, then one row per condition ×
// category key × metric present, with columns
// condition,category,metric,mean,ci_lo,ci_hi,n. Conditions follow s.Order,
// categories s.Breakdown().Keys() and metrics bench.Metrics (unknown keys
// follow, sorted); floats have 4 decimals. It returns the first write
// error.
func CSV(w io.Writer, s *bench.Summary) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"condition", "category", "metric", "mean", "ci_lo", "ci_hi", "n"}); err != nil {
		return fmt.Errorf("report: csv: %w", err)
	}
	for _, c := range conditions(s) {
		cs := s.Conditions[c]
		if cs == nil {
			continue
		}
		for _, key := range ordered(s.Breakdown().Keys(), cs.Categories) {
			byMetric := cs.Categories[key]
			for _, m := range ordered(bench.Metrics, byMetric) {
				st := byMetric[m]
				rec := []string{c, key, m, num(st.Mean, 4), num(st.CI[0], 4), num(st.CI[1], 4), strconv.Itoa(st.N)}
				if err := cw.Write(rec); err != nil {
					return fmt.Errorf("report: csv: %w", err)
				}
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: csv: %w", err)
	}
	return nil
}
