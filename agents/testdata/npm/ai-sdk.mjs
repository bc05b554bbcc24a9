// The Vercel AI SDK's tool loop against a provider's base URL: a
// read_file tool, streamText until the model answers in text. Usage:
// node ai-sdk.mjs anthropic|anthropic-tool-search|chat|responses|responses-stored PROMPT
// (anthropic-tool-search: read_file deferred, behind Anthropic's own
// tool search, which the API runs; responses-stored: a model without
// reasoning, whose earlier answers the SDK sends back as item_reference
// items, as it does with store on, the API's default).
import { readFileSync } from 'node:fs';
import { streamText, tool, jsonSchema, stepCountIs } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';

const [provider, prompt] = process.argv.slice(2);
let model;
let anthropic;
if (provider.startsWith('anthropic')) {
  anthropic = createAnthropic({ baseURL: process.env.ANTHROPIC_BASE_URL + '/v1', apiKey: process.env.ANTHROPIC_API_KEY });
  model = anthropic('claude-sonnet-4-6');
} else {
  const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });
  model = provider === 'chat' ? openai.chat('gpt-5') : openai.responses(provider === 'responses-stored' ? 'gpt-4.1' : 'gpt-5');
}
const search = provider === 'anthropic-tool-search';
const tools = {
  read_file: tool({
    description: 'Read a text file and return its contents.',
    inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }) => readFileSync(path, 'utf8'),
    ...(search && { providerOptions: { anthropic: { deferLoading: true } } }),
  }),
};
if (search) tools.tool_search = anthropic.tools.toolSearchBm25_20251119();
const result = streamText({
  model,
  system: 'You read files with read_file when asked.',
  prompt,
  tools,
  stopWhen: stepCountIs(200),
  onError: ({ error }) => { console.error('ai-sdk error:', error?.message ?? error); process.exitCode = 1; },
});
let text = '';
for await (const part of result.textStream) text += part;
console.log(text);
