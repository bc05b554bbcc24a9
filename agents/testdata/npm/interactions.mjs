// A stateless tool loop on the Gemini Interactions API with the official
// SDK (@google/genai): the history goes in the input as steps, store off,
// a read_file function run here, until the model answers in text.
// Usage: node interactions.mjs PROMPT (GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL).
import { readFileSync } from 'node:fs';
import { GoogleGenAI } from '@google/genai';

const [prompt] = process.argv.slice(2);
const ai = new GoogleGenAI({ apiKey: process.env.GEMINI_API_KEY, httpOptions: { baseUrl: process.env.GOOGLE_GEMINI_BASE_URL } });
const tools = [{
  type: 'function',
  name: 'read_file',
  description: 'Read a text file and return its contents.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
}];
let input = [{ type: 'user_input', content: [{ type: 'text', text: prompt }] }];
for (let turn = 0; turn < 200; turn++) {
  const interaction = await ai.interactions.create({
    model: 'gemini-3-flash-preview',
    system_instruction: 'You read files with read_file when asked.',
    input,
    tools,
    store: false,
  });
  const steps = interaction.steps ?? [];
  input = input.concat(steps);
  const calls = steps.filter((s) => s.type === 'function_call');
  if (calls.length === 0) {
    console.log(steps.filter((s) => s.type === 'model_output').flatMap((s) => s.content ?? []).map((c) => c.text ?? '').join(''));
    process.exit(0);
  }
  for (const call of calls) {
    let result;
    try {
      result = readFileSync(call.arguments.path, 'utf8');
    } catch (err) {
      result = String(err);
    }
    input.push({ type: 'function_result', call_id: call.id, name: call.name, result });
  }
}
console.error('interactions: no answer after 200 turns');
process.exitCode = 1;
