#!/usr/bin/env node
// A session writer that follows seed 000 exactly: its JsonSessionStore
// (JSON.stringify(session, null, 2) to "<id>.json.tmp", then rename; no
// lock, no read before a save) and its resumeOrCreate. Two patterns occur in
// the wild, and agentctl must lose nothing of either:
//   --mode once     loads the session once and saves its in-memory copy
//                   every turn (it never sees anything written under it);
//   --mode reload   loads, appends and saves every turn.
// Each turn appends {"role":"assistant","content":"turn <tag>-<n>"} and,
// once its save resolved, the line "<tag>-<n>" to the --ack file: what the
// writer acknowledged. Between turns it waits --gap-min..--gap-max ms, and
// every --think turns it "thinks" for --think-ms (so the file goes quiet).
// --honour-requests makes it a cooperating agent (README, "Pausing a
// session"): before each save it reads <dir>/.requests/<id>.json and, on a
// pause request, saves status "paused" and stops.
// --resume: start as the seed's resumeOrCreate(id) does, then save one turn.
'use strict';
const fs = require('fs/promises');
const fsSync = require('fs');
const path = require('path');
const crypto = require('crypto');

// ---- seed 000, verbatim in behaviour ----
class JsonSessionStore {
  constructor(baseDir) { this.baseDir = baseDir; }
  sessionPath(id) { return path.join(this.baseDir, `${id}.json`); }
  async create(task) {
    const session = { id: crypto.randomUUID(), createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(), task, status: 'running',
      conversationHistory: [], metadata: {} };
    await fs.mkdir(this.baseDir, { recursive: true });
    await this.save(session);
    return session;
  }
  async load(id) {
    try { const raw = await fs.readFile(this.sessionPath(id), 'utf-8'); return JSON.parse(raw); }
    catch { return null; }
  }
  async save(session) {
    const updated = { ...session, updatedAt: new Date().toISOString() };
    const tmpPath = `${this.sessionPath(session.id)}.tmp`;
    await fs.writeFile(tmpPath, JSON.stringify(updated, null, 2), 'utf-8');
    await fs.rename(tmpPath, this.sessionPath(session.id));
  }
}

async function resumeOrCreate(store, sessionId, task) {
  if (sessionId) {
    const existing = await store.load(sessionId);
    if (existing && existing.status === 'paused') {
      return { ...existing, status: 'running' };
    }
  }
  return store.create(task);
}
// ---- end of the seed ----

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}
const flag = (name) => process.argv.includes(`--${name}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const between = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));

async function pauseRequested(dir, id) {
  try {
    const r = JSON.parse(await fs.readFile(path.join(dir, '.requests', `${id}.json`), 'utf-8'));
    return r.request === 'pause';
  } catch { return false; }
}

async function main() {
  const dir = arg('dir'), id = arg('id'), mode = arg('mode', 'reload');
  const turns = Number(arg('turns', 100)), tag = arg('tag', 'w');
  const gapMin = Number(arg('gap-min', 0)), gapMax = Number(arg('gap-max', 20));
  const think = Number(arg('think', 0)), thinkMs = Number(arg('think-ms', 0));
  const ack = arg('ack');
  const store = new JsonSessionStore(dir);
  let session;
  if (flag('resume')) {
    session = await resumeOrCreate(store, id, 'resumed task');
  } else {
    session = await store.load(id);
  }
  if (!session) { console.error(`seed_agent: cannot load ${id}`); process.exit(1); }
  let loadFailures = 0;
  for (let n = 1; n <= turns; n++) {
    if (mode === 'reload' && n > 1) {
      const fresh = await store.load(id);
      if (!fresh) { loadFailures++; n--; await sleep(1); continue; }
      session = fresh;
    }
    session.conversationHistory.push({ role: 'assistant', content: `turn ${tag}-${n}` });
    if (flag('honour-requests') && await pauseRequested(dir, id)) {
      session.status = 'paused';
      await store.save(session);
      if (ack) fsSync.appendFileSync(ack, `${tag}-${n}\n`);
      break;
    }
    await store.save(session);
    if (ack) fsSync.appendFileSync(ack, `${tag}-${n}\n`);
    if (think && n % think === 0) await sleep(thinkMs);
    else await sleep(between(gapMin, gapMax));
  }
  console.log(`load_failures=${loadFailures}`);
}

main().catch((e) => { console.error(`seed_agent: ${e.message}`); process.exit(1); });
