package trajectory

import "testing"

func TestIsObservation(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"<returncode>0</returncode>\n<output>\nfoo\n</output>", true},
		{"  <returncode>-1</returncode>", true},
		{"OBSERVATION:\ntotal 12", true},
		{"Exit code: 1\nTraceback", true},
		{"[Command finished with exit code 0]", true},
		{"Please fix the bug in foo.py", false},
		{"The output was <returncode>0</returncode>", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsObservation(tt.text); got != tt.want {
			t.Errorf("IsObservation(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
