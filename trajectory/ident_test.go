package trajectory

import (
	"slices"
	"testing"
)

func TestIdentifiers(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"see django/contrib/sitemaps/__init__.py line 170.", []string{"django/contrib/sitemaps/__init__.py", "__init__.py", "__init__", "170"}},
		{"run ./x and cd /usr/lib", []string{"./x", "/usr/lib"}},
		{"this and/or that, e.g. i.e. 1/2", nil},
		{"call get_latest_lastmod() on QuerySet and getValue; os.path.join.", []string{"get_latest_lastmod", "QuerySet", "getValue", "os.path.join"}},
		{"raise ValueError at 12 or 1234", []string{"ValueError", "1234"}},
		{"MAX_SIZE is _private_name", []string{"MAX_SIZE", "_private_name"}},
		{"a.b x", nil},
	}
	for _, tt := range tests {
		got := Identifiers(tt.text)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Identifiers(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
