package wiretest

import "testing"

func TestUnthought(t *testing.T) {
	orig := `{"role":"model","parts":[{"text":"hm","thought":true},{"functionCall":{"name":"sh","args":{}},"thoughtSignature":"s"}]}`
	signed := `{"role":"model","parts":[{"text":"hm","thought":true,"thoughtSignature":"t"},{"functionCall":{"name":"sh","args":{}},"thoughtSignature":"s"}]}`
	raws := map[string]bool{orig: true, signed: true}
	for _, tc := range []struct {
		name, c string
		want    bool
	}{
		{"unsigned thought gone", `{"role":"model","parts":[{"functionCall":{"name":"sh","args":{}},"thoughtSignature":"s"}]}`, true},
		{"re-encoded the same", `{"parts":[{"functionCall":{"args":{},"name":"sh"},"thoughtSignature":"s"}],"role":"model"}`, true},
		{"the call's signature gone too", `{"role":"model","parts":[{"functionCall":{"name":"sh","args":{}}}]}`, false},
		{"the call changed", `{"role":"model","parts":[{"functionCall":{"name":"sh","args":{"a":1}},"thoughtSignature":"s"}]}`, false},
		{"as sent: nothing dropped", orig, false},
		{"a user content", `{"role":"user","parts":[]}`, false},
	} {
		if got := Unthought(raws, []byte(tc.c)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
