package swc

import "testing"

// TestContentHash: the hex SHA-256 of date, NUL, text — the value the REM
// caches have stored since they began, so their entries stay valid.
func TestContentHash(t *testing.T) {
	for _, tc := range []struct {
		req  GistRequest
		want string
	}{
		{GistRequest{Variant: GistFull, Date: "d", Text: "t"}, "f793c37e5dd99ad87380ca51a737a81a50d8328f80e4952c2d7255f43c54eb58"},
		{GistRequest{Variant: GistTemporal, Date: "d", Text: "t"}, "f793c37e5dd99ad87380ca51a737a81a50d8328f80e4952c2d7255f43c54eb58"},
		{GistRequest{}, "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"},
	} {
		if got := tc.req.ContentHash(); got != tc.want {
			t.Errorf("ContentHash(%+v) = %s, want %s", tc.req, got, tc.want)
		}
	}
}
