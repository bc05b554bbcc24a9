package http_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/swcmem/swc/internal/chromiumtest"
)

// consolidated returns an env with tenant "acme" holding conversation
// conv-1 (6 sessions) consolidated, and acme's key.
func consolidated(t *testing.T, opts ...option) (*env, string) {
	t.Helper()
	e := newEnv(t, opts...)
	c := e.client("acme")
	ctx := context.Background()
	if _, err := c.Append(ctx, "conv-1", sessions(6, 6)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.mem.Consolidate(ctx, mustTenant(t, e, "acme"), "conv-1"); err != nil {
		t.Fatal(err)
	}
	return e, c.Key
}

func TestUIFormsWithoutBrowser(t *testing.T) {
	e, key := consolidated(t)
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	post := func(path, origin string, form url.Values) *http.Response {
		req, _ := http.NewRequest("POST", e.ts.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	// Cross-site posts are refused (CSRF), and so are bad keys.
	if r := post("/ui/login", "https://evil.example", url.Values{"key": {key}}); r.StatusCode != 403 {
		t.Errorf("cross-site login: %d", r.StatusCode)
	}
	if r := post("/ui/login", "", url.Values{"key": {key}}); r.StatusCode != 403 {
		t.Errorf("login without Origin or Referer: %d", r.StatusCode)
	}
	if r := post("/ui/login", e.ts.URL, url.Values{"key": {"swc_wrong"}}); r.StatusCode != 401 {
		t.Errorf("bad key: %d", r.StatusCode)
	}
	r := post("/ui/login", e.ts.URL, url.Values{"key": {key}})
	if r.StatusCode != 200 { // followed the 303 to /ui
		t.Fatalf("login: %d", r.StatusCode)
	}
	u, _ := url.Parse(e.ts.URL + "/ui")
	cookies := jar.Cookies(u)
	if len(cookies) != 1 {
		t.Fatalf("cookies after login: %v", cookies)
	}
	get := func(path string) string {
		resp, err := hc.Get(e.ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if strings.Contains(b.String(), "<script") {
			t.Errorf("%s has a script", path)
		}
		return b.String()
	}
	if page := get("/ui"); !strings.Contains(page, `href="/ui/conversations/conv-1"`) {
		t.Errorf("list page: %.500s", page)
	}
	page := get("/ui/conversations/conv-1?budget=800")
	for _, want := range []string{`id="sessions"`, "mid", "gist", "tokens of 800)", "0 pending sessions"} {
		if !strings.Contains(page, want) {
			t.Errorf("conversation page lacks %q", want)
		}
	}
	// Another tenant's conversation is not found.
	other := e.client("other")
	jar2, _ := cookiejar.New(nil)
	hc2 := &http.Client{Jar: jar2}
	login, _ := http.NewRequest("POST", e.ts.URL+"/ui/login", strings.NewReader(url.Values{"key": {other.Key}}.Encode()))
	login.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	login.Header.Set("Origin", e.ts.URL)
	if resp, err := hc2.Do(login); err != nil || resp.StatusCode != 200 {
		t.Fatalf("other tenant's login: %v %v", resp, err)
	}
	resp, _ := hc2.Get(e.ts.URL + "/ui/conversations/conv-1")
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("other tenant's page: %d", resp.StatusCode)
	}
	if r := post("/ui/logout", e.ts.URL, nil); r.StatusCode != 200 || len(jar.Cookies(u)) != 0 {
		t.Errorf("logout: %d, cookies %v", r.StatusCode, jar.Cookies(u))
	}
}

// TestUIInChromium logs in, opens a conversation and sees its tiers in a
// real headless Chromium, and saves a screenshot.
func TestUIInChromium(t *testing.T) {
	e, key := consolidated(t)
	ctx := chromiumtest.New(t, 1280, 1000)
	err := chromedp.Do(ctx,
		chromedp.Navigate(e.ts.URL+"/ui"),
		chromedp.WaitVisible("#key"),
		chromedp.SendKeys("#key", key),
		chromedp.Click("#login"),
		chromedp.WaitVisible("#conversations"),
		chromedp.Click(`a[href="/ui/conversations/conv-1"]`),
		chromedp.WaitVisible("#sessions"),
	)
	if err != nil {
		t.Fatal(err)
	}
	sessionsText, err := chromedp.Run(ctx, chromedp.Text("#sessions"))
	if err != nil {
		t.Fatal(err)
	}
	contextText, err := chromedp.Run(ctx, chromedp.Text("#context"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	cookies := res.Cookies
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"high", "mid", "pinned", "gist"} {
		if !strings.Contains(sessionsText, want) {
			t.Errorf("sessions table lacks %q:\n%s", want, sessionsText)
		}
	}
	if !strings.Contains(contextText, "[Session 1") {
		t.Errorf("context text: %.300s", contextText)
	}
	if len(cookies) != 1 || !cookies[0].HTTPOnly || cookies[0].SameSite != network.CookieSameSiteStrict {
		t.Errorf("cookie: %+v", cookies)
	}
	dir := os.Getenv("SWC_TEST_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, "ui-conversation.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(shot))
}
