#!/usr/bin/env node
// Writes what the seeds' own code writes when an agent cuts text with
// String.prototype.slice in the middle of an emoji: a lone surrogate,
// which JSON.stringify (ES2019 well-formed stringify) writes as the escape
// "\ud83d" and JSON.parse reads back. Each writer follows its seed:
//   session      seed 000 JsonSessionStore.create() then save():
//                JSON.stringify(updated, null, 2) to "<id>.json.tmp", renamed
//   operation    seed 000 OperationLog.record() with gitEnabled true:
//                `git add -A`, `git commit -m "..."` through the shell, then
//                JSON.stringify(entry) + "\n" appended to operations.jsonl
//   journal      the event, JSON.stringify'd, for seed004_journal.js `log`
// Usage: seed_lone_surrogate.js WORKSPACE
// Prints "session <id>", "operation <id>" and "event <JSON>", one a line.
'use strict';
const crypto = require('crypto');
const fs = require('fs/promises');
const path = require('path');
const util = require('util');
const execAsync = util.promisify(require('child_process').exec);

// "ship🚀" cut after 5 UTF-16 units: "ship" + the rocket's high half (no
// space: the seed's commit command is built for the shell, and a space
// outside its quotes would split the message).
const CUT_HIGH = 'ship🚀🚀'.slice(0, 5);
// And from the other end: the low half of the rocket, then "ok".
const CUT_LOW = '🚀ok'.slice(1);

class JsonSessionStore {
  constructor(baseDir) { this.baseDir = baseDir; }
  sessionPath(id) { return path.join(this.baseDir, `${id}.json`); }
  async create(task) {
    const session = {
      id: crypto.randomUUID(), createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(),
      task, status: 'running', conversationHistory: [], metadata: {},
    };
    await fs.mkdir(this.baseDir, { recursive: true });
    await this.save(session);
    return session;
  }
  async save(session) {
    const updated = { ...session, updatedAt: new Date().toISOString() };
    const tmpPath = `${this.sessionPath(session.id)}.tmp`;
    await fs.writeFile(tmpPath, JSON.stringify(updated, null, 2), 'utf-8');
    await fs.rename(tmpPath, this.sessionPath(session.id));
  }
}

class OperationLog {
  constructor(logPath, gitEnabled, cwd) { this.logPath = logPath; this.gitEnabled = gitEnabled; this.cwd = cwd; }
  async record(entry) {
    const full = { ...entry, id: crypto.randomUUID(), timestamp: new Date().toISOString() };
    if (this.gitEnabled && entry.type !== 'command_run') full.gitCommitHash = await this.gitCommit(entry);
    await this.append(full);
    return full;
  }
  async gitCommit(entry) {
    const message = `[agent] ${entry.type}: ${JSON.stringify(entry.details).slice(0, 80)}`;
    await execAsync('git add -A', { cwd: this.cwd });
    await execAsync(`git commit -m "${message}" --no-verify`, { cwd: this.cwd });
    const { stdout } = await execAsync('git rev-parse HEAD', { cwd: this.cwd });
    return stdout.trim();
  }
  async append(entry) {
    await fs.appendFile(this.logPath, JSON.stringify(entry) + '\n', 'utf-8');
  }
}

async function main() {
  const ws = process.argv[2];
  if (!ws) throw new Error('usage: seed_lone_surrogate.js WORKSPACE');
  const agent = path.join(ws, '.agent');

  const store = new JsonSessionStore(path.join(agent, 'sessions'));
  const session = await store.create(`deploy ${CUT_HIGH}`);
  session.conversationHistory.push(
    { role: 'user', content: `launch ${CUT_HIGH}` },
    { role: 'assistant', content: [{ type: 'text', text: `${CUT_LOW} done` }] });
  for (let i = 0; i < 6; i++)
    session.conversationHistory.push({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} ${'x'.repeat(40)}` });
  await store.save(session);

  await fs.writeFile(path.join(ws, 'notes.txt'), `${CUT_HIGH}\n`, 'utf-8');
  const log = new OperationLog(path.join(agent, 'operations.jsonl'), true, ws);
  const op = await log.record({ sessionId: session.id, type: 'file_write', details: { path: 'notes.txt', preview: CUT_HIGH } });

  const event = {
    id: 'evt_20250903142510_0badcafe', timestamp: '2025-09-03T14:25:10.591Z', agent: 'Claude', status: 'SUCCESS',
    action: { type: 'FILE_EDIT', input: `write ${CUT_HIGH}`, params: { path: 'notes.txt' } },
    result: { message: `wrote ${CUT_HIGH}`, artifacts: ['notes.txt'] },
  };
  process.stdout.write(`session ${session.id}\noperation ${op.id}\nevent ${JSON.stringify(event)}\n`);
}

main().catch((err) => { process.stderr.write(`${err.message}\n`); process.exit(1); });
