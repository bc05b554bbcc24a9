package http

import "testing"

// TestGeminiURL: a version segment the base ends with and the path starts
// with is written once; an upload's path goes after the base without its
// version.
func TestGeminiURL(t *testing.T) {
	for _, tc := range []struct{ base, path, want string }{
		{"https://g.example", "/v1beta/models/m:generateContent", "https://g.example/v1beta/models/m:generateContent"},
		{"https://g.example/v1beta", "/v1beta/files", "https://g.example/v1beta/files"},
		{"https://g.example", "/upload/v1beta/files", "https://g.example/upload/v1beta/files"},
		{"https://g.example/v1beta", "/upload/v1beta/files", "https://g.example/upload/v1beta/files"},
		{"https://g.example/v1alpha", "/v1alpha/models", "https://g.example/v1alpha/models"},
	} {
		if got := geminiURL(tc.base, tc.path); got != tc.want {
			t.Errorf("geminiURL(%q, %q) = %q, want %q", tc.base, tc.path, got, tc.want)
		}
	}
}
