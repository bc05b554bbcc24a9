package memory

import (
	"bytes"
	"io"
	"net/http"
	"strings"

	"github.com/swcmem/swc/chat"
	"github.com/swcmem/swc/internal/httpbody"
)

// Middleware has the signature of option.Middleware in both official SDKs
// (github.com/openai/openai-go/v3/option and
// github.com/anthropics/anthropic-sdk-go/option declare it as a type alias),
// so its values go straight into either SDK's option.WithMiddleware without
// this package importing them.
type Middleware = func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error)

// OpenAIMiddleware returns a Middleware that compresses the messages of
// every Chat Completions request (POST …/chat/completions) with c before it
// is sent: the request's other fields and the kept messages go out byte for
// byte, the history becomes one system message (a tool loop's old tool
// results are stubbed in place instead: Result.Rewritten). A request that
// already fits the budget, that is not a Chat Completions request, or that
// cannot be compressed (malformed) is sent unchanged; one whose protected
// messages alone exceed the budget goes out over it (Result.OverBudget).
// report, when not nil, is called for every
// compressible request with its result, or with the error that left it
// unchanged.
func OpenAIMiddleware(c *Compressor, report func(*Result, error)) Middleware {
	return middleware(c, report, "/chat/completions", chat.OpenAI)
}

// AnthropicMiddleware is OpenAIMiddleware for the Messages API (POST
// …/v1/messages): the memory is appended to "system" (as a text block when
// system is a list of blocks, so cache_control on the original blocks stays
// valid), and the kept messages start at a user message. With
// Options.CacheBreakpoints auto (the default) the memory block carries a
// cache_control mark when the client's marks leave room for one.
func AnthropicMiddleware(c *Compressor, report func(*Result, error)) Middleware {
	return middleware(c, report, "/messages", chat.Anthropic)
}

// middleware compresses the requests to paths ending in suffix, read and
// written by the codec of f (whose AlignUser c takes on).
func middleware(c *Compressor, report func(*Result, error), suffix string, f chat.Format) Middleware {
	return middlewareExcept(c, report, suffix, f, nil, nil)
}

// middlewareExcept is middleware sending a body relay says to leave alone
// as it came (nil: none), unreported, and reading the lengths of the
// files a request names by URI from files (nil: none; files.go).
func middlewareExcept(c *Compressor, report func(*Result, error), suffix string, f chat.Format, relay func(body []byte) bool, files *fileLengths) Middleware {
	if report == nil {
		report = func(*Result, error) {}
	}
	codec, ok := chat.CodecOf(f)
	if !ok {
		panic("memory: no codec for format " + string(f))
	}
	cc := *c
	if codec.AlignUser() {
		cc.opts.AlignUser = true
	}
	c = &cc
	splice := func(in *chat.Input, res *Result) ([]byte, error) {
		return codec.Splice(in, output(res, c.opts.CacheBreakpoints))
	}
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		if files != nil && files.answers(req) {
			resp, err := next(req)
			if err == nil {
				files.tap(resp)
			}
			return resp, err
		}
		if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, suffix) || req.Body == nil {
			return next(req)
		}
		body, err := httpbody.ReadAll(req.Body, req.ContentLength)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		setBody(req, body)
		if relay != nil && relay(body) {
			return next(req)
		}
		out, err := compressBody(req, c, f, body, splice, files, next)
		if err != nil {
			report(nil, err)
			return next(req)
		}
		report(out.res, nil)
		if out.body != nil {
			setBody(req, out.body)
		}
		return next(req)
	}
}

type compressed struct {
	res  *Result
	body []byte // nil: send the original
}

// compressBody compresses body, a request of format f, counting the
// audio and video it names by URI by files (nil: counting them nothing),
// which asks the Files API, through next, about those it does not know.
func compressBody(req *http.Request, c *Compressor, f chat.Format, body []byte, splice func(*chat.Input, *Result) ([]byte, error), files *fileLengths, next func(*http.Request) (*http.Response, error)) (compressed, error) {
	model := chat.URLModel(req.URL.Path)
	var missed []string
	in, err := chat.ParseOwnedFiles(body, f, model, files.missing(&missed)) // read for this request, never written
	if err == nil && len(missed) > 0 && files.lookup(req, next, missed) {
		in, err = chat.ParseOwnedFiles(body, f, model, files.lengths()) // counted again with what was learned
	}
	if err != nil {
		return compressed{}, err
	}
	if c.opts.HoldBudget {
		c = c.Held(c.ToolTokens(in.Body["tools"]))
	}
	res, err := c.Compress(req.Context(), in.Messages)
	if err != nil {
		return compressed{}, err
	}
	if res.Fits {
		return compressed{res: res}, nil
	}
	nb, err := splice(in, res)
	return compressed{res: res, body: nb}, err
}

func setBody(req *http.Request, b []byte) {
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.ContentLength = int64(len(b))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}
