#!/usr/bin/env node
// A live agent that changes the workspace's files while the operator looks
// at a rollback plan: seed 000's JsonSessionStore for its session file
// (JSON.stringify(session, null, 2) to "<id>.json.tmp", then rename) and
// its OperationLog's habit of one operation, committed, per file write
// (here through `agentctl ops record`, an argv array, never a shell).
// It cooperates as the README's "Pausing a session" asks: before each turn
// it reads <sessions>/.requests/<id>.json and, on a pause request, saves
// its session "paused" and stops.
//   node live_writer.js AGENTCTL WORKSPACE ID GAP_MS
// Each turn appends a line to work/<id>.txt, records the operation and
// saves one message; it runs until paused (or killed).
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const [agentctl, ws, id, gapArg] = process.argv.slice(2);
const gap = Number(gapArg || 100);
const dir = path.join(ws, '.agent', 'sessions');

// ---- seed 000: JsonSessionStore.load/save, synchronously ----
function load() {
  try { return JSON.parse(fs.readFileSync(path.join(dir, `${id}.json`), 'utf-8')); } catch { return null; }
}
function save(session) {
  const updated = { ...session, updatedAt: new Date().toISOString() };
  const tmpPath = path.join(dir, `${id}.json.tmp`);
  fs.writeFileSync(tmpPath, JSON.stringify(updated, null, 2), 'utf-8');
  fs.renameSync(tmpPath, path.join(dir, `${id}.json`));
}
// ---- end of the seed ----

function pauseRequested() {
  try {
    const r = JSON.parse(fs.readFileSync(path.join(dir, '.requests', `${id}.json`), 'utf-8'));
    return r.request === 'pause';
  } catch { return false; }
}

const sleep = ms => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
fs.mkdirSync(path.join(ws, 'work'), { recursive: true });
for (let turn = 1; ; turn++) {
  if (pauseRequested()) {
    const s = load();
    save({ ...s, status: 'paused' });
    process.exit(0);
  }
  const file = `work/${id}.txt`;
  fs.appendFileSync(path.join(ws, file), `turn ${turn}\n`);
  execFileSync(agentctl, ['-w', ws, 'ops', 'record', '--session', id, '--type', 'file_write',
    '--details', JSON.stringify({ path: file, turn })], { stdio: ['ignore', 'ignore', 'ignore'] });
  const s = load();
  s.conversationHistory.push({ role: 'assistant', content: `turn ${turn}` });
  save(s);
  sleep(gap);
}
