package http

import "testing"

// TestGeminiURL: the request's version is the one sent, written once,
// whatever version the base ends with; an upload's path goes after the
// base without its version.
func TestGeminiURL(t *testing.T) {
	for _, tc := range []struct{ base, path, want string }{
		{"https://g.example", "/v1beta/models/m:generateContent", "https://g.example/v1beta/models/m:generateContent"},
		{"https://g.example/v1beta", "/v1beta/files", "https://g.example/v1beta/files"},
		{"https://g.example", "/upload/v1beta/files", "https://g.example/upload/v1beta/files"},
		{"https://g.example/v1beta", "/upload/v1beta/files", "https://g.example/upload/v1beta/files"},
		{"https://g.example/v1alpha", "/v1alpha/models", "https://g.example/v1alpha/models"},
		{"https://g.example/v1beta", "/v1/models/m:generateContent", "https://g.example/v1/models/m:generateContent"},
		{"https://g.example/v1beta", "/v1alpha/models", "https://g.example/v1alpha/models"},
		{"https://g.example/v1", "/v1beta/files", "https://g.example/v1beta/files"},
		{"https://g.example/gateway/v1beta", "/v1beta/models", "https://g.example/gateway/v1beta/models"},
	} {
		if got := geminiURL(tc.base, tc.path); got != tc.want {
			t.Errorf("geminiURL(%q, %q) = %q, want %q", tc.base, tc.path, got, tc.want)
		}
	}
}
