#!/usr/bin/env node
// Counts what a seed_race round lost: every message that existed before
// (the --initial file, one content a line) and every turn the writers
// acknowledged (the --ack file) must be in the session file or in one of
// the archives agentctl keeps of what it removed
// (<sessions>/.compactions/<id>/, <sessions>/.rollbacks/<id>/).
// Prints "expected=N found=N lost=N archives=N [missing=a,b,...]".
'use strict';
const fs = require('fs');
const path = require('path');

function arg(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const lines = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf-8') : '')
  .split('\n').filter((l) => l.length > 0);

const dir = arg('dir'), id = arg('id');
const expected = [...lines(arg('initial')), ...lines(arg('ack')).map((t) => `turn ${t}`)];
const seen = new Set();
function collect(messages) {
  for (const m of messages || []) if (typeof m.content === 'string') seen.add(m.content);
}
collect(JSON.parse(fs.readFileSync(path.join(dir, `${id}.json`), 'utf-8')).conversationHistory);
let archives = 0;
for (const folder of ['.compactions', '.rollbacks']) {
  const where = path.join(dir, folder, id);
  if (!fs.existsSync(where)) continue;
  for (const name of fs.readdirSync(where)) {
    if (!name.endsWith('.json')) continue;
    archives++;
    const doc = JSON.parse(fs.readFileSync(path.join(where, name), 'utf-8'));
    collect(doc.messages || doc.removedMessages || doc.conversationHistory);
  }
}
const missing = expected.filter((c) => !seen.has(c));
console.log(`expected=${expected.length} found=${expected.length - missing.length} ` +
  `lost=${missing.length} archives=${archives}` +
  (missing.length ? ` missing=${missing.slice(0, 10).join(',').replace(/ /g, '_')}` : ''));
