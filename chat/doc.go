// Package chat reads and writes the chat-message formats agents hold their
// history in and groups messages into sessions:
//
//   - openai: Chat Completions messages — a JSON array, a request body
//     {"model":…,"messages":[…]}, or JSONL one message a line;
//   - anthropic: a Messages request body {"system":…,"messages":[…]} with
//     text, tool_use and tool_result content blocks read, blocks of any
//     other type kept as they came, and mid-conversation system messages
//     (swc.Message.InPlace) in their place;
//   - jsonl: one {"time","speaker","text","session"?} object a line;
//   - responses and gemini: OpenAI Responses and Gemini generateContent
//     request bodies (see Responses and Gemini).
//
// Parse turns any of them into []swc.Message (Detect names the format of
// unlabelled input); Sessionize groups messages into an swc.Conversation
// whose sessions carry dates, so that strategies can compress them; and
// OpenAIMessages/AnthropicRequest write messages back in a provider's wire
// form. The package depends only on the root package.
package chat
