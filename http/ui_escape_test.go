package http

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"

	"github.com/swcmem/swc"
)

// hostile are values a user can put into a conversation (its id, message
// text, speaker names, gists) or into a job's error; the pages must show
// them as text.
var hostile = []string{`"><script>alert(1)</script>`, `' onmouseover=x '`}

// checkEscaped fails when page carries any of hostile raw.
func checkEscaped(t *testing.T, name, page string) {
	t.Helper()
	for _, h := range hostile {
		if strings.Contains(page, h) {
			t.Errorf("%s carries %q unescaped", name, h)
		}
	}
	for _, bad := range []string{"<script", "onmouseover=x '", "'><"} {
		if strings.Contains(page, bad) {
			t.Errorf("%s carries %q", name, bad)
		}
	}
}

// render writes page to w, failing t on a render error.
func render(t *testing.T, w io.Writer, page templ.Component) {
	t.Helper()
	if err := page.Render(context.Background(), w); err != nil {
		t.Fatal(err)
	}
}

func TestUIPagesEscape(t *testing.T) {
	for _, h := range hostile {
		var b strings.Builder
		render(t, &b, uiListPage([]swc.ConversationInfo{{ID: h, Messages: 2, LastMessage: time.Unix(0, 0).UTC()}}))
		checkEscaped(t, "list page", b.String())

		b.Reset()
		d := &ConversationDetail{ConversationInfo: swc.ConversationInfo{ID: h},
			SessionList: []SessionInfo{{Date: h, Messages: 1}},
			PendingJobs: []swc.Job{{State: h, LastError: h}}}
		render(t, &b, uiConversationPage(conversationPage{Detail: d, Strategies: []string{h, "swc-anchored"},
			Rows:    []sessionRow{{ChunkReport: swc.ChunkReport{Tier: swc.Tier(h), Action: swc.Action(h), Reason: h, Gist: h}, Start: h}},
			Context: contextView{Strategy: h, Text: "Maya: " + h}}))
		checkEscaped(t, "conversation page", b.String())

		b.Reset()
		render(t, &b, uiLoginPage(loginPage{Error: h}))
		checkEscaped(t, "login page", b.String())
	}
}

// TestUIListLinksPathEscaped: the link to a conversation is built from its
// id path-escaped, so an id with '/', '?', '#' or '%' still names it.
func TestUIListLinksPathEscaped(t *testing.T) {
	var b strings.Builder
	render(t, &b, uiListPage([]swc.ConversationInfo{{ID: "a/b?c#d%e f"}}))
	if want := `href="/ui/conversations/a%2Fb%3Fc%23d%25e%20f"`; !strings.Contains(b.String(), want) {
		t.Errorf("list page lacks %s:\n%s", want, b.String())
	}
}

// TestUIRequestPagesEscape: the requests and original pages show
// hostile conversation ids, previews, roles, handles and originals as
// text, and build their links path-escaped.
func TestUIRequestPagesEscape(t *testing.T) {
	for _, h := range hostile {
		var b strings.Builder
		item := swc.CompressedItem{Index: 3, Role: swc.Role(h), Kind: swc.ItemKind(h), Preview: h, Tokens: 9}
		render(t, &b, uiRequestsPage(requestsPage{Conv: h, Requests: []requestView{{
			CompressionRecord: swc.CompressionRecord{Protocol: h, Mode: h, At: time.Unix(0, 0).UTC()},
			Counts:            h, Open: true,
			Rows: []itemView{{CompressedItem: item, Handle: h, Href: originalHref(h, h)}, {CompressedItem: item, Handle: h}},
		}}}))
		checkEscaped(t, "requests page", b.String())

		b.Reset()
		render(t, &b, uiOriginalPage(originalPage{Conv: h, Ref: h, Found: true, Handle: h, Stored: h, Role: h, Name: h, Calls: h, CallID: h, Text: h}))
		checkEscaped(t, "original page", b.String())
		b.Reset()
		render(t, &b, uiOriginalPage(originalPage{Conv: h, Ref: h}))
		checkEscaped(t, "missing original page", b.String())
	}
	var b strings.Builder
	render(t, &b, uiRequestsPage(requestsPage{Conv: "a/b?c", Requests: []requestView{{
		Rows: []itemView{{CompressedItem: swc.CompressedItem{Kind: swc.ItemMasked}, Handle: "h0123456789", Href: originalHref("a/b?c", "h0123456789")}}}}}))
	if want := `href="/ui/conversations/a%2Fb%3Fc/originals/h0123456789"`; !strings.Contains(b.String(), want) {
		t.Errorf("requests page lacks %s:\n%s", want, b.String())
	}
}
