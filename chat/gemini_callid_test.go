package chat

import "testing"

// TestGeminiCallID: a part's call id and key read as tokens, the
// arguments skipped; a part that is no call, however it mentions one, is
// none; a part the token reader refuses is decoded whole.
func TestGeminiCallID(t *testing.T) {
	for _, tt := range []struct {
		name, part, id, key string
		ok                  bool
	}{
		{"text", `{"text":"see functionCall"}`, "", "", false},
		{"text ending like a key", `{"text":"call functionCall\"","thought":true}`, "", "", false},
		{"call with id", `{"functionCall":{"name":"write_file","args":{"content":"a whole file"},"id":"c1"},"thoughtSignature":"sig"}`, "c1", "functionCall", true},
		{"id before the args", `{"functionCall":{"id":"c2","name":"ls","args":{}}}`, "c2", "functionCall", true},
		{"snake case", `{"function_call":{"name":"ls","args":{}}}`, geminiSyntheticID(3, 1), "function_call", true},
		{"no id", `{"thoughtSignature":"s","functionCall":{"name":"ls","args":{"path":"."}}}`, geminiSyntheticID(3, 1), "functionCall", true},
		{"invalid UTF-8 in the args", "{\"functionCall\":{\"name\":\"w\",\"args\":{\"c\":\"\xff\"},\"id\":\"c3\"}}", "c3", "functionCall", true},
		{"not an object", `"functionCall"`, "", "", false},
	} {
		id, key, ok := geminiCallID([]byte(tt.part), 3, 1)
		if id != tt.id || key != tt.key || ok != tt.ok {
			t.Errorf("%s: geminiCallID = %q, %q, %v; want %q, %q, %v", tt.name, id, key, ok, tt.id, tt.key, tt.ok)
		}
	}
}
