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
		{"[File: /r/A.java (9 lines total)]\n1:class A {}\n(Open file: /r/A.java)\n(Current directory: /r)\nbash-$", true},
		{"/bin/bash: line 9: javac: command not found\n(Open file: n/a)\n(Current directory: /r)\nbash-$", true},
		{"(Open file: n/a)\n(Current directory: /r)\nbash-$\n", true},
		{"I ran it in (Current directory: /r) and saw bash-$ prompts", false},
		{"[read_file for 'src/app.ts'] Result:\nimport x from 'y';", true},
		{"[execute_command for 'npm test -- --grep 'a''] Result:\nCommand executed.", true},
		{"[attempt_completion] Result:", true},
		{"[read_file for 2 files] Result:\nx", true},
		{"[read_file for 'src/app.ts'] Result: and then?", false},
		{"[read_file for 'a'] result:\nx", false},
		{"[TASK RESUMPTION] This task was interrupted 7 minutes ago.", false},
		{"[execute_command for 'python - <<EOF\nprint(1)\nEOF'] Result:\n1", true},
		{"[attempt_completion] Result:\nThe user has provided feedback on the results.\n<feedback>\nAlso add a test.\n</feedback>", false},
		{"[ask_followup_question for 'Which port?'] Result:\n<answer>\n8080\n</answer>", false},
	}
	for _, tt := range tests {
		if got := IsObservation(tt.text); got != tt.want {
			t.Errorf("IsObservation(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
