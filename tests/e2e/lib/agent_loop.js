#!/usr/bin/env node
// A real agent loop that keeps all its state through agentctl, as an agent
// in any language would (README, "Using agentctl as the storage layer from
// any language"): no file of the workspace is read or written here except
// the project file the agent "edits". Every call goes through execFileSync
// (an argv array, never a shell), JSON on the command line or stdin.
//   node agent_loop.js AGENTCTL WORKSPACE TURNS
// Prints the session id on stdout; exits non-zero on the first failure.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const [agentctl, ws, turnsArg] = process.argv.slice(2);
const turns = Number(turnsArg || 3);

// One agentctl command; stdin (optional) is JSON. Returns stdout trimmed.
function ac(args, stdin) {
  return execFileSync(agentctl, ['-w', ws, ...args], {
    input: stdin === undefined ? '' : JSON.stringify(stdin),
    encoding: 'utf-8',
    stdio: ['pipe', 'pipe', 'inherit'],
  }).trim();
}

const id = ac(['session', 'create', 'write the notes file', '--tenant', 'acme',
  '--user', 'ana', '--agent', 'claude']);
for (let turn = 1; turn <= turns; turn++) {
  ac(['session', 'append', id, '-'], { role: 'user', content: `add line ${turn}` });
  const call = `call-${turn}`;
  const length = Number(ac(['session', 'append', id, '-'], [
    { role: 'assistant', content: [
      { type: 'text', text: `Adding line ${turn}.` },
      { type: 'tool_use', id: call, name: 'write_file', input: { path: 'notes.txt', line: turn } },
    ] },
  ]));
  if (length !== 4 * (turn - 1) + 2) throw new Error(`history is ${length} long after turn ${turn}`);
  // The tool runs (the agent's own file write), then the operation is logged.
  fs.appendFileSync(path.join(ws, 'notes.txt'), `line ${turn}\n`);
  const op = ac(['ops', 'record', '--session', id, '--type', 'file_write', '--details',
    JSON.stringify({ path: 'notes.txt', turn })]);
  if (!/^[0-9a-f-]{36}$/.test(op)) throw new Error(`ops record printed '${op}'`);
  const number = ac(['session', 'record-turn', id, '--input', String(100 * turn),
    '--output', String(10 * turn), '--messages', '-'], [
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: call, content: 'ok' }] },
    { role: 'assistant', content: `Line ${turn} added.` },
  ]);
  if (number !== String(turn)) throw new Error(`record-turn printed '${number}' for turn ${turn}`);
  ac(['checkpoint', 'create', id, '--node', `turn-${turn}`, '--input', '-',
    '--input-type', 'json'], { turn, op });
}
ac(['checkpoint', 'create', id, '--tombstone']);
process.stdout.write(`${id}\n`);
