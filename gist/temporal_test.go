package gist

import "testing"

func TestHasTemporalFallback(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"I went to the support group yesterday.", true},
		{"We moved here two years ago.", true},
		{"See you next weekend!", true},
		{"The race is on 7 May.", true},
		{"It was in May.", true},
		{"I ran a charity race last Saturday.", true},
		{"My birthday is in October.", true},
		{"The show starts at 9pm.", true},
		{"I graduated in 2019.", true},
		{"Last week was tough.", true},
		{"It happened on 05/07/2023.", true},
		{"Meet me at 9:30 am.", true},
		{"Filed on 2023-05-07.", true},
		{"Back in mid-May we met.", true},
		{"Music of the 1990s.", true},
		{"A few weeks ago, I quit.", true},
		{"I may go to the beach.", false},
		{"May I ask?", false},
		{"This is the last one.", false},
		{"That painting is lovely.", false},
		{"I have 3 kids.", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := hasTemporalFallback(tt.in); got != tt.want {
			t.Errorf("hasTemporalFallback(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
