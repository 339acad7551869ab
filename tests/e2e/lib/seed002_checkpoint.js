#!/usr/bin/env node
// Checkpoints as seed 002's code makes them, for interop tests: the fields
// of Koog's createCheckpoint(agentContext, nodeId, lastInput, lastInputType,
// checkpointId, version) (AgentCheckpointData: checkpointId, createdAt,
// nodeId, lastInput, lastInputType, messageHistory, version) and of Koog's
// tombstoneCheckpoint (nodeId "tombstone", lastInput null, no messages,
// properties.tombstone true). No sessionId: saveCheckpoint(agentId, data)
// files each under its agent's (here: session's) folder. Node built-ins only.
//
//   seed002_checkpoint.js create DIR SESSION NODE VERSION [ID] [--koog] < session.json
//   seed002_checkpoint.js tombstone DIR SESSION VERSION [--koog]
//
// The session document (agentctl session show ID --json, or the file) on
// standard input is the agent context: messageHistory is its history.
// DIR/SESSION/ID.json is the layout DESIGN.md names; --koog writes Koog's
// own, DIR/SESSION/ID with no extension (FilePersistenceStorageProvider:
// fs.joinPath(agentCheckpointsDir(agentId), checkpointId)). Prints the id.
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

function save(dir, agentId, data, koog) {
  const folder = path.join(dir, agentId);
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, koog ? data.checkpointId : `${data.checkpointId}.json`);
  fs.writeFileSync(file, JSON.stringify(data), 'utf-8');
  process.stdout.write(data.checkpointId + '\n');
}

function main() {
  const args = process.argv.slice(2);
  const koog = args.includes('--koog');
  const [command, dir, session, ...rest] = args.filter((a) => a !== '--koog');
  if (command === 'create') {
    const [nodeId, version, checkpointId] = rest;
    const agentContext = JSON.parse(fs.readFileSync(0, 'utf-8'));
    const history = agentContext.conversationHistory;
    const lastUser = [...history].reverse().find((m) => m.role === 'user');
    save(dir, session, {
      checkpointId: checkpointId || crypto.randomUUID(),
      createdAt: new Date().toISOString(),
      nodeId,
      lastInput: lastUser ? lastUser.content : null,
      lastInputType: 'kotlin.String',
      messageHistory: history,
      version: Number(version),
    }, koog);
  } else if (command === 'tombstone') {
    save(dir, session, {
      checkpointId: crypto.randomUUID(),
      createdAt: new Date().toISOString(),
      nodeId: 'tombstone',
      lastInput: null,
      messageHistory: [],
      version: Number(rest[0]),
      properties: { tombstone: true },
    }, koog);
  } else {
    throw new Error('usage: seed002_checkpoint.js create DIR SESSION NODE VERSION [ID] [--koog] | tombstone DIR SESSION VERSION [--koog]');
  }
}

main();
