package memory

import "github.com/swcmem/swc/chat"

// ResponsesMiddleware is OpenAIMiddleware for the Responses API (POST
// …/responses): the input items are compressed as chat.Responses reads
// them, the memory goes in as a developer message item, and every byte of
// the body outside "input" is sent as it came. A request whose history is
// stored at the provider (chat.ProviderHistory: previous_response_id,
// conversation, item_reference), which chat.Parse refuses, is sent
// unchanged.
func ResponsesMiddleware(c *Compressor, report func(*Result, error)) Middleware {
	return middleware(c, report, "/responses", chat.Responses)
}
