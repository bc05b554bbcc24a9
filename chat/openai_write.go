package chat

import "encoding/json"

// openAICodec is the Chat Completions format (openai.go reads it).
type openAICodec struct{}

func (openAICodec) Format() Format                    { return OpenAI }
func (openAICodec) AlignUser() bool                   { return false }
func (openAICodec) parse(data []byte) (*Input, error) { return parseOpenAI(data) }

// Splice writes the request body with out's messages: kept messages as
// they came (a rewritten one with its "content" replaced, every other
// byte as it came), the memory as a system message.
func (openAICodec) Splice(in *Input, out Output) ([]byte, error) {
	msgs := make([]json.RawMessage, 0, len(out.Messages))
	for k, src := range out.Source {
		if src < 0 {
			b, err := json.Marshal(OpenAIMessages(out.Messages[k : k+1])[0])
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, b)
			continue
		}
		raw, err := rewriteRaw(in, out, in.Origin[src], contentPath, nil)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, raw)
	}
	return withMessages(in, msgs, nil)
}
