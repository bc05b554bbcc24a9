package memory

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/swcmem/swc/chat"
)

// GeminiMiddleware is OpenAIMiddleware for the Gemini API (POST
// …:generateContent and …:streamGenerateContent): the memory is appended
// to the request's systemInstruction as a text part, or is the first
// content (of role user) when the kept contents start with a model
// content, since the API wants a user turn first; a request without a
// systemInstruction (a model may take none: Gemma), or naming a
// cachedContent (which must not set one), has it as the first text part
// of its first content instead. Audio and video a request names by URI
// (fileData) count by the length the Files API gave in an answer that
// went through this middleware (an upload's, a get's: a processed
// video's videoDuration, else the file's size at 500 kbit/s, audio at 64
// kbit/s; chat.GeminiFiles); a file of the Files API it has not seen it
// asks the API about first, through next with the request's credentials
// (at most 8 files a request, 3 seconds at most; files.go); else nothing.
func GeminiMiddleware(c *Compressor, report func(*Result, error)) Middleware {
	files := newFileLengths()
	gen := middlewareExcept(c, report, ":generateContent", chat.Gemini, nil, files)
	stream := middlewareExcept(c, report, ":streamGenerateContent", chat.Gemini, nil, files)
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		if strings.HasSuffix(req.URL.Path, ":streamGenerateContent") {
			return stream(req, next)
		}
		return gen(req, next)
	}
}

// InteractionsMiddleware is OpenAIMiddleware for the Gemini Interactions
// API (POST …/interactions, a new interaction): its input's contents,
// turns or steps compressed as generateContent's are (chat.Interactions).
// An interaction that continues another (previous_interaction_id), whose
// history Google keeps, or has no input (an agent's run resumed by its
// continuation_token), goes as it came, reported to no one. Media named
// by URI count as GeminiMiddleware counts them.
func InteractionsMiddleware(c *Compressor, report func(*Result, error)) Middleware {
	return middlewareExcept(c, report, "/interactions", chat.Interactions, func(body []byte) bool {
		var b struct {
			Previous string          `json:"previous_interaction_id"`
			Input    json.RawMessage `json:"input"`
		}
		return json.Unmarshal(body, &b) == nil && (b.Previous != "" || len(b.Input) == 0 || string(b.Input) == "null")
	}, newFileLengths())
}
