// A reference SandboxMemoProvider over a mirror folder, written to seed 001
// (§1 "可选的 Memo 方法" and "可选的 Tool Result Artifact 方法", §6): the
// seed's method names and arguments, the memo documents of a session under
// /workspace/memo/<scope>/<name> and its tool-result artifacts under
// /workspace/memo/artifacts/<toolCallId>, the layout agentctl's
// `sandbox mirror` writes. It is what an agent-side program uses inside the
// sandbox; the e2e test drives it to read what agentctl mirrored and to make
// the edits `sandbox sync` writes back.
//   node sandbox_memo.js DIR dump                  -> JSON of every file
//   node sandbox_memo.js DIR write SCOPE NAME FILE -> writeMemoryDocument
//   node sandbox_memo.js DIR append SCOPE NAME FILE -> appendMemoryDocument
"use strict";
const fs = require("fs");
const path = require("path");

class MirrorMemoStore {
  constructor(root) {
    this.root = root; // the folder mounted as /workspace/memo
  }

  // ownerId is the session, user or agent id; the mirror holds one of each,
  // so the scope alone picks the folder.
  async readMemoryDocument(tenantId, ownerId, scope, name) {
    try {
      return fs.readFileSync(path.join(this.root, scope, name), "latin1");
    } catch (e) {
      if (e.code === "ENOENT") return null;
      throw e;
    }
  }

  async writeMemoryDocument(tenantId, ownerId, scope, name, content) {
    fs.mkdirSync(path.join(this.root, scope), { recursive: true });
    fs.writeFileSync(path.join(this.root, scope, name), content, "latin1");
  }

  async appendMemoryDocument(tenantId, ownerId, scope, name, content) {
    const existing = (await this.readMemoryDocument(tenantId, ownerId, scope, name)) ?? "";
    await this.writeMemoryDocument(tenantId, ownerId, scope, name, existing + content);
  }

  async readToolResultArtifact(sessionRef, toolCallId) {
    try {
      return fs.readFileSync(path.join(this.root, "artifacts", toolCallId), "latin1");
    } catch (e) {
      if (e.code === "ENOENT") return null;
      throw e;
    }
  }

  // SandboxMemoProvider (§6), not the session store.
  async listToolResultArtifactIds(sessionRef) {
    try {
      return fs.readdirSync(path.join(this.root, "artifacts")).sort();
    } catch (e) {
      if (e.code === "ENOENT") return [];
      throw e;
    }
  }

  async listMemoryDocuments(scope) {
    try {
      return fs.readdirSync(path.join(this.root, scope)).sort();
    } catch (e) {
      if (e.code === "ENOENT") return [];
      throw e;
    }
  }
}

async function main() {
  const [root, verb, ...rest] = process.argv.slice(2);
  const store = new MirrorMemoStore(root);
  if (verb === "dump") {
    // Bytes as latin1 code points, so a byte-for-byte comparison survives JSON.
    const out = { memo: {}, artifacts: {} };
    for (const scope of ["session", "user", "agent"]) {
      out.memo[scope] = {};
      for (const name of await store.listMemoryDocuments(scope))
        out.memo[scope][name] = await store.readMemoryDocument("", "", scope, name);
    }
    for (const id of await store.listToolResultArtifactIds({}))
      out.artifacts[id] = await store.readToolResultArtifact({}, id);
    process.stdout.write(JSON.stringify(out));
  } else if (verb === "write" || verb === "append") {
    const [scope, name, file] = rest;
    const content = fs.readFileSync(file, "latin1");
    if (verb === "write") await store.writeMemoryDocument("", "", scope, name, content);
    else await store.appendMemoryDocument("", "", scope, name, content);
  } else {
    process.stderr.write("usage: sandbox_memo.js DIR dump|write|append ...\n");
    process.exit(2);
  }
}

main().catch((e) => {
  process.stderr.write(String(e) + "\n");
  process.exit(1);
});
