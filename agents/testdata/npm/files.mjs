// A tool loop on generateContent with the official SDK (@google/genai)
// whose task names an audio file uploaded first with the Files API (a
// resumable upload), as fileData: the request holds its URI, not its
// bytes. A read_file function is run here until the model answers in text.
// Usage: node files.mjs AUDIO PROMPT (GEMINI_API_KEY, GOOGLE_GEMINI_BASE_URL;
// UPLOAD_AROUND, SWC_AGENTS_UPSTREAM).
import { readFileSync } from 'node:fs';
import { GoogleGenAI, createPartFromUri } from '@google/genai';

const [audio, prompt] = process.argv.slice(2);
const ai = new GoogleGenAI({ apiKey: process.env.GEMINI_API_KEY, httpOptions: { baseUrl: process.env.GOOGLE_GEMINI_BASE_URL } });
// UPLOAD_AROUND: the upload and the get go straight to the provider
// (SWC_AGENTS_UPSTREAM) with the provider's key, as another program's
// would.
const files = process.env.UPLOAD_AROUND
  ? new GoogleGenAI({ apiKey: 'upstream-gemini-key', httpOptions: { baseUrl: process.env.SWC_AGENTS_UPSTREAM } })
  : ai;
const uploaded = await files.files.upload({ file: audio, config: { mimeType: 'audio/wav' } });
const file = await files.files.get({ name: uploaded.name });
const config = {
  systemInstruction: 'You read files with read_file when asked.',
  tools: [{
    functionDeclarations: [{
      name: 'read_file',
      description: 'Read a text file and return its contents.',
      parametersJsonSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    }],
  }],
};
const contents = [{ role: 'user', parts: [createPartFromUri(file.uri, file.mimeType), { text: prompt }] }];
for (let turn = 0; turn < 200; turn++) {
  const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents, config });
  const content = response.candidates?.[0]?.content;
  if (!content) {
    console.error('files: no candidate');
    process.exit(1);
  }
  contents.push(content);
  const calls = (content.parts ?? []).filter((p) => p.functionCall);
  if (calls.length === 0) {
    console.log(response.text);
    process.exit(0);
  }
  const parts = calls.map(({ functionCall: call }) => {
    let output;
    try {
      output = readFileSync(call.args.path, 'utf8');
    } catch (err) {
      output = String(err);
    }
    return { functionResponse: { id: call.id, name: call.name, response: { output } } };
  });
  contents.push({ role: 'user', parts });
}
console.error('files: no answer after 200 turns');
process.exitCode = 1;
