// Seed 000's JsonSessionStore.list(), as the seed writes it: read every
// session file, parse it whole, keep id/task/status/createdAt, newest first.
// Prints one line per session, as `agentctl session list` does.
//   node seed_session_list.js SESSIONS_DIR
const fs = require('fs/promises');
const path = require('path');

async function list(baseDir) {
  const files = await fs.readdir(baseDir).catch(() => []);
  const sessions = await Promise.all(
    files
      .filter(f => f.endsWith('.json') && !f.endsWith('.tmp.json'))
      .map(async f => {
        const raw = await fs.readFile(path.join(baseDir, f), 'utf-8');
        const s = JSON.parse(raw);
        return { id: s.id, task: s.task, status: s.status, createdAt: s.createdAt };
      })
  );
  return sessions.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

list(process.argv[2]).then(sessions => {
  const lines = sessions.map(s => `${s.id}  ${s.status}  ${s.createdAt}  ${s.task}`);
  process.stdout.write(lines.join('\n') + '\n');
});
