package memory

import (
	"encoding/json"

	"github.com/swcmem/swc"
	"github.com/swcmem/swc/chat"
)

// ResponsesMiddleware is OpenAIMiddleware for the Responses API (POST
// …/responses): the input items are compressed as chat.Responses reads
// them, the memory goes in as a developer message item, and every byte of
// the body outside "input" is sent as it came. A request whose history is
// stored at the provider (chat.ProviderHistory: previous_response_id,
// conversation, item_reference), which chat.Parse refuses, is sent
// unchanged.
func ResponsesMiddleware(c *Compressor, report func(*Result, error)) Middleware {
	return middleware(c, report, "/responses", chat.Responses, spliceResponses)
}

// spliceResponses writes the request body with res's items: the input
// array replaced, kept items as they came (a reasoning item with the item
// it belongs to; a rewritten function_call_output with its "output"
// replaced), the memory as a developer message item where res puts it;
// every other byte of the body as it came.
func spliceResponses(in *chat.Input, res *Result) ([]byte, error) {
	if in.Request == nil {
		return nil, swc.Errorf(swc.EINVALID, "not a responses request body: nothing to splice the input into")
	}
	items := make([][]byte, 0, len(res.Source))
	size := len(in.Request)
	done := make(map[int]bool, len(res.Source))
	for k, src := range res.Source {
		if src < 0 {
			text, err := json.Marshal(res.Messages[k].Content)
			if err != nil {
				return nil, err
			}
			item := append(append([]byte(`{"type":"message","role":"developer","content":`), text...), '}')
			items = append(items, item)
			size += len(item)
			continue
		}
		o := in.Origin[src]
		if o < 0 || done[o] { // the instructions stay in their field
			continue
		}
		done[o] = true
		raw, err := rewriteRaw(in, res, o)
		if err != nil {
			return nil, err
		}
		items = append(items, raw)
	}
	out := make([]byte, 0, size+len(items)+2)
	out = append(out, in.Request[:in.Span[0]]...)
	out = append(out, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	out = append(out, ']')
	return append(out, in.Request[in.Span[1]:]...), nil
}
