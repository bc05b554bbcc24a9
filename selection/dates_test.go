package selection

import (
	"fmt"
	"testing"
)

// TestNamedDays: the calendar dates a question names in full, in the
// forms LoCoMo's and REALTALK's questions write them; none for a date
// without its year, a slash date (its order unknown) or an impossible
// day.
func TestNamedDays(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"What did Kevin watch on the night of 10.01.2024?", "[2024-01-10]"},
		{"What movie did Joanna watch on 1 May, 2022?", "[2022-05-01]"},
		{"What did Audrey eat for dinner on October 24, 2023?", "[2023-10-24]"},
		{"What did Maria do last weekend before April 10th, 2023?", "[2023-04-10]"},
		{"Between 2023-03-01 and 3rd of Sept 2023, and again on 1 March 2023?", "[2023-03-01 2023-09-03]"},
		{"When Fahim caught a cold in 2024?", "[]"},
		{"What happened on 5 January?", "[]"},
		{"What happened on 01/05/2024?", "[]"},
		{"What happened on 31.04.2024 or 13.13.2024?", "[]"},
	} {
		var got []string
		for _, d := range namedDays(tc.q) {
			got = append(got, fmt.Sprintf("%04d-%02d-%02d", d.y, d.m, d.d))
		}
		if s := fmt.Sprint(got); s != tc.want && !(len(got) == 0 && tc.want == "[]") {
			t.Errorf("%q: %s, want %s", tc.q, s, tc.want)
		}
	}
}
