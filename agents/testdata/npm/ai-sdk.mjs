// The Vercel AI SDK's tool loop against a provider's base URL: a
// read_file tool, streamText until the model answers in text. Usage:
// node ai-sdk.mjs anthropic|anthropic-tool-search|chat|responses|responses-stored|responses-tool-search|responses-tool-search-stored PROMPT
// (anthropic-tool-search, responses-tool-search, responses-tool-search-stored:
// read_file deferred, behind the provider's own tool search, which the API
// runs; responses-tool-search with store off; responses-stored: a model
// without reasoning, whose earlier answers the SDK sends back as
// item_reference items, as it does with store on, the API's default;
// responses-tool-search-stored: store on, the search sent back so too).
import { readFileSync } from 'node:fs';
import { streamText, tool, jsonSchema, stepCountIs } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';

const [provider, prompt] = process.argv.slice(2);
let model;
let anthropic;
let openaiTools;
if (provider.startsWith('anthropic')) {
  anthropic = createAnthropic({ baseURL: process.env.ANTHROPIC_BASE_URL + '/v1', apiKey: process.env.ANTHROPIC_API_KEY });
  model = anthropic('claude-sonnet-4-6');
} else {
  const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });
  model = provider === 'chat' ? openai.chat('gpt-5') : openai.responses({ 'responses-stored': 'gpt-4.1', 'responses-tool-search': 'gpt-5.4', 'responses-tool-search-stored': 'gpt-5.4' }[provider] ?? 'gpt-5');
  if (provider.startsWith('responses-tool-search')) openaiTools = openai.tools;
}
const search = provider.includes('-tool-search');
const tools = {
  read_file: tool({
    description: 'Read a text file and return its contents.',
    inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    execute: async ({ path }) => readFileSync(path, 'utf8'),
    ...(search && { providerOptions: { anthropic: { deferLoading: true }, openai: { deferLoading: true } } }),
  }),
};
if (provider === 'anthropic-tool-search') tools.tool_search = anthropic.tools.toolSearchBm25_20251119();
if (provider.startsWith('responses-tool-search')) tools.tool_search = openaiTools.toolSearch();
const result = streamText({
  model,
  system: 'You read files with read_file when asked.',
  prompt,
  tools,
  stopWhen: stepCountIs(200),
  ...(provider === 'responses-tool-search' && { providerOptions: { openai: { store: false } } }),
  onError: ({ error }) => { console.error('ai-sdk error:', error?.message ?? error); process.exitCode = 1; },
});
let text = '';
for await (const part of result.textStream) text += part;
console.log(text);
