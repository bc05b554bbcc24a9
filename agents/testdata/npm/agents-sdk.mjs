// The OpenAI Agents SDK's loop against OPENAI_BASE_URL: one agent with a
// read_file tool, run to its end (streamed). Usage: node agents-sdk.mjs
// responses|chat PROMPT
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { Agent, run, tool, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from '@openai/agents';

const [api, prompt] = process.argv.slice(2);
setTracingDisabled(true);
setDefaultOpenAIClient(new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY }));
setOpenAIAPI(api === 'chat' ? 'chat_completions' : 'responses');
const readFile = tool({
  name: 'read_file',
  description: 'Read a text file and return its contents.',
  parameters: { type: 'object', properties: { path: { type: 'string', description: 'Path of the file.' } }, required: ['path'], additionalProperties: false },
  strict: true,
  execute: async ({ path }) => readFileSync(path, 'utf8'),
});
const agent = new Agent({ name: 'reader', instructions: 'You read files with read_file when asked.', model: 'gpt-5', tools: [readFile] });
const result = await run(agent, prompt, { stream: true, maxTurns: 200 });
for await (const _ of result.toTextStream()) { /* drain */ }
await result.completed;
console.log(result.finalOutput);
