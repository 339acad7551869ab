#!/usr/bin/env node
// The seed's compaction (storage-backend guide, compactIfNeeded) over the
// seed's JsonSessionStore (load: readFile + JSON.parse; save: updatedAt,
// JSON.stringify(s, null, 2) to <id>.json.tmp, rename), as a peer for
// bench/compare.d: the same work agentctl's `session compact ID --force` does.
//
//   node seed_compact.js SESSIONS_DIR ID SUMMARIZER [ARG...]
//
// The summariser gets the messages to summarise as JSON on stdin and prints
// the summary, as agentctl's summarizer.command does. estimateTokens is not
// in the seed; it is the usual length/4 over the serialised messages.
"use strict";
const fs = require("fs/promises");
const path = require("path");
const { spawn } = require("child_process");

const [dir, id, ...summarizer] = process.argv.slice(2);
const sessionPath = (sid) => path.join(dir, `${sid}.json`);

async function load(sid) {
  try {
    const raw = await fs.readFile(sessionPath(sid), "utf-8");
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

async function save(session) {
  const updated = { ...session, updatedAt: new Date().toISOString() };
  const tmpPath = `${sessionPath(session.id)}.tmp`;
  await fs.writeFile(tmpPath, JSON.stringify(updated, null, 2), "utf-8");
  await fs.rename(tmpPath, sessionPath(session.id));
}

const estimateTokens = (messages) => Math.ceil(JSON.stringify(messages).length / 4);

function summarizeFn(messages) {
  return new Promise((resolve, reject) => {
    const child = spawn(summarizer[0], summarizer.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf-8");
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`summarizer exit ${code}`))));
    child.stdin.end(JSON.stringify(messages));
  });
}

// The seed's store methods, on the JSON session file.
const store = {
  async loadAllMessages(tenantId, sessionId) {
    return (await load(sessionId)).conversationHistory;
  },
  async replaceAll(sessionId, messages) {
    const session = await load(sessionId);
    session.conversationHistory = messages;
    await save(session);
  },
  // Verbatim from the seed, with triggerTokens 0 standing for --force.
  async compactIfNeeded(tenantId, sessionId, summarizeFn, options) {
    const messages = await this.loadAllMessages(tenantId, sessionId);
    const triggerTokens = options?.triggerTokens ?? 80_000;
    if (estimateTokens(messages) < triggerTokens) return false;

    const compactFraction = options?.compactFraction ?? 0.5;
    const cutoff = Math.floor(messages.length * compactFraction);
    const summary = await summarizeFn(messages.slice(0, cutoff));

    const compacted = [
      { role: "user", content: `[Conversation summary]: ${summary}` },
      ...messages.slice(cutoff),
    ];
    await this.replaceAll(sessionId, compacted);
    return true;
  },
};

store.compactIfNeeded("bench", id, summarizeFn, { triggerTokens: 0 }).then(
  (done) => console.log(done ? `session ${id}: compacted` : `session ${id}: not compacted`),
  (err) => {
    console.error(`seed_compact: ${err.message}`);
    process.exit(1);
  }
);
