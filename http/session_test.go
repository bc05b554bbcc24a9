package http_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	swchttp "github.com/swcmem/swc/http"
	"github.com/swcmem/swc/sleep"
)

// uiLogin posts key to /ui/login from remote (with X-Forwarded-Proto
// proto when set) and returns the response's session cookie.
func uiLogin(t *testing.T, e *env, key, remote, proto string) *http.Cookie {
	t.Helper()
	req := httptest.NewRequest("POST", "http://swc.example/ui/login", strings.NewReader(url.Values{"key": {key}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://swc.example")
	req.RemoteAddr = remote
	if proto != "" {
		req.Header.Set("X-Forwarded-Proto", proto)
	}
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("login: %d %s", rec.Code, rec.Body)
	}
	cs := rec.Result().Cookies()
	if len(cs) != 1 {
		t.Fatalf("login set %d cookies", len(cs))
	}
	return cs[0]
}

// uiStatus GETs /ui/conversations/conv-1 with cookie c: 200 when the
// session is valid, 303 (to the login page) when not.
func uiStatus(e *env, c *http.Cookie) int {
	req := httptest.NewRequest("GET", "http://swc.example/ui/conversations/conv-1", nil)
	req.AddCookie(c)
	rec := httptest.NewRecorder()
	e.srv.Handler().ServeHTTP(rec, req)
	return rec.Code
}

// TestUISession: the /ui cookie is a signed session token with an expiry,
// never the key; it is Secure over TLS or behind a trusted proxy that says
// so; a tampered, expired or revoked session, or a raw key, is refused.
func TestUISession(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	e, key := consolidated(t, func(s *swchttp.Server, _ *sleep.Service) {
		s.Now, s.SessionTTL = clock, time.Hour
		s.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	})
	c := uiLogin(t, e, key, "192.0.2.1:5000", "")
	if strings.Contains(c.Value, key) || strings.Contains(c.Value, strings.TrimPrefix(key, swchttp.KeyPrefix)) {
		t.Fatalf("the cookie holds the key: %s", c.Value)
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.MaxAge != 3600 || c.Secure {
		t.Errorf("cookie over plain HTTP: %+v", c)
	}
	if code := uiStatus(e, c); code != 200 {
		t.Fatalf("a fresh session: %d", code)
	}
	if c := uiLogin(t, e, key, "10.1.2.3:5000", "https"); !c.Secure {
		t.Error("behind a trusted proxy over TLS: the cookie is not Secure")
	}
	if c := uiLogin(t, e, key, "192.0.2.1:5000", "https"); c.Secure {
		t.Error("an untrusted client's X-Forwarded-Proto was believed")
	}
	// A raw key, or a token changed in one character, is no session.
	for name, v := range map[string]string{"raw key": key, "tampered": c.Value[:10] + string(c.Value[10]^1) + c.Value[11:]} {
		if code := uiStatus(e, &http.Cookie{Name: c.Name, Value: v}); code != http.StatusSeeOther {
			t.Errorf("%s: %d", name, code)
		}
	}
	now = now.Add(time.Hour + time.Second)
	if code := uiStatus(e, c); code != http.StatusSeeOther {
		t.Errorf("an expired session: %d", code)
	}
	now = time.Now()
	keys, _ := e.db.Keys(t.Context())
	for _, k := range keys {
		if k.Hash == swchttp.HashKey(key) {
			if err := e.db.RevokeKey(t.Context(), k.ID, now); err != nil {
				t.Fatal(err)
			}
		}
	}
	now = now.Add(swchttp.DefaultKeyCacheTTL + time.Second)
	if code := uiStatus(e, c); code != http.StatusSeeOther {
		t.Errorf("a revoked key's session: %d", code)
	}
}
