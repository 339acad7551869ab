#!/usr/bin/env node
// The reference journal.js of seed 004 (§2.1.2), written as the seed
// specifies it and as tests/fixtures/make-fixtures.js's Journal class does:
// Node built-ins only (fs/promises), one JSON object a line, an O_EXCL
// ".lock" holding the writer's pid around each append. For interop tests:
//   seed004_journal.js FILE log JSONDATA      appends JSONDATA + "\n"
//   seed004_journal.js FILE read [--last N] [--json]
// read parses every line with JSON.parse (as the seed's readers would) and
// prints one compact event a line, or a JSON array with --json.
'use strict';
const fs = require('fs/promises');

async function log(file, jsonData) {
  const lock = `${file}.lock`;
  const fh = await fs.open(lock, 'wx');
  try {
    await fh.writeFile(String(process.pid));
    await fs.appendFile(file, jsonData + '\n', 'utf-8');
  } finally {
    await fh.close();
    await fs.unlink(lock);
  }
}

async function read(file, args) {
  const text = await fs.readFile(file, 'utf-8');
  let events = text.split('\n').filter((line) => line.length > 0).map((line) => JSON.parse(line));
  const last = args.indexOf('--last');
  if (last >= 0) events = events.slice(-Number(args[last + 1]));
  if (args.includes('--json')) process.stdout.write(JSON.stringify(events, null, 2) + '\n');
  else for (const e of events) process.stdout.write(JSON.stringify(e) + '\n');
}

async function main() {
  const [file, command, ...rest] = process.argv.slice(2);
  if (command === 'log') await log(file, rest[0]);
  else if (command === 'read') await read(file, rest);
  else throw new Error(`usage: seed004_journal.js FILE log JSON | read [--last N] [--json]`);
}

main().catch((err) => { process.stderr.write(`${err.message}\n`); process.exit(1); });
