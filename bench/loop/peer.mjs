#!/usr/bin/env node
// The peer of the loop benchmark: a coding agent's tool loop written the
// plain way with the official `ollama` npm client. It streams /api/chat,
// runs list_dir itself, appends the results to the history and stops on an
// answer without tool calls. It keeps nothing on disk.
//
//   node peer.mjs --host URL --request FILE --workspace DIR [--max-rounds N]
//
// FILE is a chat request as Loupe sent it (fakeollama -save-request writes
// one): the peer sends the same model, options, tools, system prompt and
// user message, so both clients send the same requests. It prints one JSON
// line, {"rounds":N,"answer":"..."}, and exits 0 when the model answered.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Ollama } from 'ollama';

const { values: opt } = parseArgs({
  options: {
    host: { type: 'string' },
    request: { type: 'string' },
    workspace: { type: 'string' },
    'max-rounds': { type: 'string', default: '1000' },
  },
});
if (!opt.host || !opt.request || !opt.workspace) {
  console.error('usage: node peer.mjs --host URL --request FILE --workspace DIR [--max-rounds N]');
  process.exit(2);
}
const maxRounds = Number(opt['max-rounds']);
const saved = JSON.parse(fs.readFileSync(opt.request, 'utf8'));
const workspace = fs.realpathSync(opt.workspace);

// listDir lists a folder of the workspace as Loupe's list_dir does: sorted
// names, one a line, folders with a trailing slash.
function listDir(args) {
  const dir = path.resolve(workspace, String(args?.path ?? '.'));
  if (dir !== workspace && !dir.startsWith(workspace + path.sep)) {
    throw new Error(`${args.path} is outside the workspace`);
  }
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  if (entries.length === 0) return `${args.path} is empty`;
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return entries.map((e) => (e.isDirectory() ? e.name + '/' : e.name) + '\n').join('');
}

function execute(call) {
  try {
    if (call.function.name !== 'list_dir') {
      throw new Error(`the peer does not run ${call.function.name}`);
    }
    return listDir(call.function.arguments);
  } catch (err) {
    return `error: ${err.message}`;
  }
}

const client = new Ollama({ host: opt.host });
const messages = saved.messages.map((m) => ({ role: m.role, content: m.content }));

for (let round = 1; round <= maxRounds; round++) {
  const stream = await client.chat({
    model: saved.model,
    messages,
    tools: saved.tools,
    options: saved.options,
    stream: true,
  });
  let content = '';
  let thinking = '';
  const calls = [];
  let done = false;
  for await (const part of stream) {
    content += part.message?.content ?? '';
    thinking += part.message?.thinking ?? '';
    if (part.message?.tool_calls) calls.push(...part.message.tool_calls);
    if (part.done) {
      done = true;
      // A cut-off answer's calls are never run.
      if (part.done_reason === 'length') calls.length = 0;
    }
  }
  if (!done) {
    console.error(`peer: round ${round}: the stream ended without a done line`);
    process.exit(1);
  }
  const reply = { role: 'assistant', content };
  if (thinking) reply.thinking = thinking;
  if (calls.length > 0) reply.tool_calls = calls;
  messages.push(reply);
  if (calls.length === 0) {
    console.log(JSON.stringify({ rounds: round, answer: content }));
    process.exit(0);
  }
  for (const call of calls) {
    messages.push({ role: 'tool', content: execute(call), tool_name: call.function.name, tool_call_id: call.id });
  }
}
console.error(`peer: stopped after ${maxRounds} rounds (the round cap)`);
process.exit(1);
