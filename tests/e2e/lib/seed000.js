#!/usr/bin/env node
// Seed 000's JsonSessionStore, ConfigResolver and OperationLog commit
// message, and seed 001's compactIfNeeded cut, as the seeds write them
// (Node built-ins only), for interop tests that compare agentctl with the
// seeds' own code:
//   seed000.js save DIR < SESSION_JSON    JsonSessionStore.save (temp file, rename)
//   seed000.js list DIR                   JsonSessionStore.list, as JSON
//   seed000.js config WS                  ConfigResolver.resolve() run in WS
//                                         (HOME from the environment), as JSON
//   seed000.js commit-message TYPE DETAILS_JSON
//                                         OperationLog.gitCommit's message for
//                                         details as JSON.parse gives them
//   seed000.js compact-cut DIR ID         how many messages seed 001's
//                                         compactIfNeeded summarises (forced)
'use strict';
const fs = require('fs/promises');
const path = require('path');
const os = require('os');

// ---- seed 000: JsonSessionStore (save and list verbatim) ----
class JsonSessionStore {
  constructor(baseDir) { this.baseDir = baseDir; }
  sessionPath(id) { return path.join(this.baseDir, `${id}.json`); }
  async load(id) {
    try { const raw = await fs.readFile(this.sessionPath(id), 'utf-8'); return JSON.parse(raw); } catch { return null; }
  }
  async save(session) {
    const updated = { ...session, updatedAt: new Date().toISOString() };
    const tmpPath = `${this.sessionPath(session.id)}.tmp`;
    await fs.writeFile(tmpPath, JSON.stringify(updated, null, 2), 'utf-8');
    await fs.rename(tmpPath, this.sessionPath(session.id));
  }
  async list() {
    const files = await fs.readdir(this.baseDir).catch(() => []);
    const sessions = await Promise.all(
      files
        .filter(f => f.endsWith('.json') && !f.endsWith('.tmp.json'))
        .map(async f => {
          const raw = await fs.readFile(path.join(this.baseDir, f), 'utf-8');
          const s = JSON.parse(raw);
          return { id: s.id, task: s.task, status: s.status, createdAt: s.createdAt };
        })
    );
    return sessions.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }
}

// ---- seed 000: ConfigResolver (verbatim) ----
const CONFIG_DEFAULTS = { model: 'claude-sonnet-4-5', maxTokens: 8192, temperature: 0, requireApproval: ['write_file', 'delete_file', 'run_command'], sessionDir: '.agent/sessions' };
class ConfigResolver {
  constructor() { this.cache = null; }
  async resolve() {
    if (this.cache) return this.cache;
    const layers = await Promise.all([this.loadProjectConfig(), this.loadUserConfig(), this.loadEnvConfig()]);
    this.cache = Object.assign({}, CONFIG_DEFAULTS, ...layers.reverse());
    return this.cache;
  }
  async loadProjectConfig() {
    const paths = ['.agent/config.json', '.agentrc.json'];
    for (const p of paths) {
      try { const raw = await fs.readFile(p, 'utf-8'); return JSON.parse(raw); } catch { /* none: next */ }
    }
    return {};
  }
  async loadUserConfig() {
    const configPath = path.join(os.homedir(), '.config', 'agent', 'config.json');
    try { const raw = await fs.readFile(configPath, 'utf-8'); return JSON.parse(raw); } catch { return {}; }
  }
  loadEnvConfig() {
    const config = {};
    if (process.env.AGENT_MODEL) config.model = process.env.AGENT_MODEL;
    if (process.env.AGENT_MAX_TOKENS) config.maxTokens = parseInt(process.env.AGENT_MAX_TOKENS, 10);
    if (process.env.AGENT_SESSION_DIR) config.sessionDir = process.env.AGENT_SESSION_DIR;
    return config;
  }
}

// ---- seed 000: OperationLog.gitCommit's message (the text; the seed then
// hands it to a shell, which DESIGN.md replaces by an argv) ----
function commitMessage(entry) {
  return `[agent] ${entry.type}: ${JSON.stringify(entry.details).slice(0, 80)}`;
}

// ---- seed 001: compactIfNeeded over an in-memory db, forced ----
async function compactCut(messages, compactFraction = 0.5) {
  let summarised = -1;
  const summarizeFn = async (part) => { summarised = part.length; return 'summary'; };
  const cutoff = Math.floor(messages.length * compactFraction);
  const summary = await summarizeFn(messages.slice(0, cutoff));
  void summary;
  return summarised;
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'save') {
    const text = require('fs').readFileSync(0, 'utf-8');
    await new JsonSessionStore(args[0]).save(JSON.parse(text));
  } else if (command === 'list') {
    process.stdout.write(JSON.stringify(await new JsonSessionStore(args[0]).list()) + '\n');
  } else if (command === 'config') {
    process.chdir(args[0]);
    process.stdout.write(JSON.stringify(await new ConfigResolver().resolve()) + '\n');
  } else if (command === 'commit-message') {
    process.stdout.write(commitMessage({ type: args[0], details: JSON.parse(args[1]) }) + '\n');
  } else if (command === 'compact-cut') {
    const s = await new JsonSessionStore(args[0]).load(args[1]);
    process.stdout.write(String(await compactCut(s.conversationHistory)) + '\n');
  } else {
    throw new Error('usage: seed000.js save DIR | list DIR | config WS | commit-message TYPE JSON | compact-cut DIR ID');
  }
}
main().catch((e) => { console.error(e.message); process.exit(1); });
