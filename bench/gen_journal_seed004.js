#!/usr/bin/env node
// A second benchmark journal, made the way seed 004's writers make theirs
// rather than the way agentctl does (bench/gen_journal.py is the first):
//
//   node gen_journal_seed004.js OUT SIZE_MB [--seed N]
//
// Seed 004 (/work/shared/seeds/004_*.txt):
//   §2.1.2  scripts/journal.js `log <jsonData>` appends jsonData + "\n" to
//           JOURNAL.jsonl; its callers build the event as a JS object and
//           pass JSON.stringify(obj) (tests/e2e/lib/seed004_journal.js,
//           tests/fixtures/make-fixtures.js's Journal class);
//   §2.1.3  tasks.py (Python invoke) builds log_data as
//           '{"agent": "%s", ...}' — agent first, Python's json.dumps
//           spelling: ", " and ": " separators, non-ASCII as \uXXXX;
//   §2.2    the schema: id evt_<YYYYMMDDhhmmss>_<hex8>, timestamp
//           YYYY-MM-DDTHH:mm:ss.sssZ, agent, status, action{type, input?,
//           params}, result{message, artifacts?}, trace?{correlation_id,
//           parent_id?}.
//
// Three writers share the journal, each with its own key order (shares of
// the lines in a 10 MiB journal of seed 42):
//   journal.js (Node, 43%): {id,timestamp,agent,status,action,result,
//     trace}, JSON.stringify;
//   tasks.py (Python, 28%): {agent,id,timestamp,status,action{type,params,
//     input},result,trace}, json.dumps defaults;
//   a hook writer (Node, 29%: System's tasks and 15% of the others'):
//     {timestamp,id,agent,action,status,trace,result} — trace before
//     result — with a clock up to 1.5 s behind, so its lines are slightly
//     out of time order.
// Work comes in tasks: a correlation id shared by 1..30 events of one agent,
// two or three tasks interleaved, a quarter of them opening with
// SESSION_START; 30% of tasks carry no trace. Agents are
// uneven (Claude 38, Codex 24, System 16, Gemini 14, Human 8). One recurring
// correlation id (RARE_ID below, also printed on stderr) comes back about
// every 65,000 events — the rare term to measure; it appears nowhere else.
// Messages: mostly short, a long tail; Korean, Japanese and emoji text;
// quotes, backslashes, tabs and multi-line outputs (escaped by each writer).
//
// Deterministic from --seed (sfc32 generator); node's built-ins only. Lines
// are built in memory and written in batches of a few MiB; the file ends on
// a whole line once SIZE_MB MiB are reached.
'use strict';
const fs = require('fs');

const RARE_ID = 'task_nightly_7f3a91';
const RARE_EVERY = 65000;

function sfc32(a, b, c, d) {
  return function next() {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

function makeRng(seed) {
  const next = sfc32(0x9e3779b9, 0x243f6a88, 0xb7e15162, seed >>> 0);
  for (let i = 0; i < 20; i++) next();
  const rng = {
    float: next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (list) => list[Math.floor(next() * list.length)],
    hex: (n) => {
      let s = '';
      while (s.length < n) s += Math.floor(next() * 4294967296).toString(16).padStart(8, '0');
      return s.slice(0, n);
    },
  };
  rng.weighted = (items, weights) => {
    const total = weights.reduce((x, y) => x + y, 0);
    return () => {
      let r = next() * total;
      for (let i = 0; i < items.length; i++) {
        r -= weights[i];
        if (r < 0) return items[i];
      }
      return items[items.length - 1];
    };
  };
  return rng;
}

const AGENTS = ['Claude', 'Codex', 'System', 'Gemini', 'Human'];
const AGENT_WEIGHTS = [38, 24, 16, 14, 8];
const STATUSES = ['SUCCESS', 'FAILED', 'IN_PROGRESS'];
const STATUS_WEIGHTS = [82, 9, 9];
const ACTIONS = ['FILE_EDIT', 'CMD_RUN', 'FILE_CREATE', 'ANALYSIS', 'FILE_DELETE'];
const ACTION_WEIGHTS = [36, 28, 14, 16, 6];
const MODELS = ['claude-sonnet-4', 'gpt-5-codex', 'gemini-2.5-pro'];
const WRITERS = ['journal.js', 'tasks.py', 'hook'];
const WRITER_WEIGHTS = [50, 35, 15];

const WORDS = ('add fix the parser journal session checkpoint rollback agent ' +
  'workspace config module test fixture header buffer offset index query ' +
  'filter thread lock writer reader append rename commit branch merge review ' +
  'refactor cleanup error warning line column token stream file directory ' +
  'path schema field value compile link deploy cache retry timeout socket ' +
  'server route handler middleware express port request response').split(' ');
const NON_ASCII = [
  '세션을 다시 시작했습니다', '저널 파일을 읽는 중 오류가 발생했습니다',
  '테스트가 모두 통과했습니다 ✅', '태스크 실행기가 journal.js를 호출했습니다',
  'チェックポイントを保存しました', 'ファイルの書き込みに失敗しました',
  '🚀 deploy finished', '🐛 fixed off-by-one in offset math',
  '⚠️ lock held by pid 4242', 'café naïve résumé — “quoted” ‘text’',
];
const TRICKY = [
  'replaced "foo" with "bar" in server.js',
  'path c:\\Users\\etlov\\agents-workspace\\server.js not found',
  'npm test\n\n> app@1.0.0 test\n> jest\n\nPASS  tests/server.test.js\n  ✓ listens on 3000 (12 ms)\n',
  'Traceback (most recent call last):\n  File "tasks.py", line 14, in run\n    subprocess.run(["node", "scripts/journal.js", "log", log_data])\nCalledProcessError: exit status 1',
  'diff:\n-\tconst port = 3000;\n+\tconst port = process.env.PORT || 3000;\n',
  'said: "don\'t touch \\n literally"',
];
const DIRS = ['src', 'routes', 'lib', 'tests', 'scripts', 'docs', 'public', 'config'];
const EXTS = ['.js', '.ts', '.json', '.md', '.py', '.css', '.html'];
const COMMANDS = ['npm test', 'npm run build', 'npm run lint', 'node server.js',
  'git status', 'git diff --stat', 'pytest -q', 'invoke run --agent claude',
  'node scripts/journal.js read --last 5', 'ls -la', 'npx tsc --noEmit'];
const PROMPTS = ['Create a basic express server in server.js',
  'Add a health check route', 'Why does the login test fail?',
  'Refactor the journal reader to stream lines', '테스트를 고쳐 주세요',
  'Explain the lock file in journal.js', 'Rename handler to controller',
  'Write unit tests for the router'];

function sentence(rng, length) {
  const parts = [];
  let size = 0;
  while (size < length) {
    const r = rng.float();
    let p;
    if (r < 0.04) p = rng.pick(NON_ASCII);
    else if (r < 0.07) p = rng.pick(TRICKY);
    else {
      const n = rng.int(3, 10);
      const w = [];
      for (let i = 0; i < n; i++) w.push(rng.pick(WORDS));
      p = w.join(' ');
    }
    parts.push(p);
    size += p.length + 2;
  }
  let text = parts.join('. ');
  if (text.length > length) text = text.slice(0, length);
  // A cut between the halves of an emoji leaves a lone surrogate: drop it.
  if (/[\ud800-\udbff]$/.test(text)) text = text.slice(0, -1);
  return text + '.';
}

function messageLength(rng) {
  const r = rng.float();
  if (r < 0.8) return rng.int(40, 90);
  if (r < 0.98) return rng.int(90, 300);
  return rng.int(300, 2000);
}

function buildPools(rng) {
  const paths = [];
  for (let i = 0; i < 1500; i++) {
    let p = `${rng.pick(DIRS)}/${rng.pick(WORDS)}_${rng.pick(WORDS)}${rng.pick(EXTS)}`;
    if (i % 5 === 0) p = `c:/Users/etlov/agents-workspace/${p}`; // as in §2.2's example
    paths.push(p);
  }
  const messages = [];
  for (let i = 0; i < 8192; i++) messages.push(sentence(rng, messageLength(rng)));
  const summaries = [];
  for (let i = 0; i < 2048; i++) summaries.push(sentence(rng, rng.int(15, 60)));
  return { paths, messages, summaries };
}

// Python's json.dumps(obj) with its defaults: ", " and ": ", ensure_ascii
// (every character outside ' '..'~' as \uXXXX, UTF-16 halves for emoji).
// JSON.stringify escapes control characters exactly as Python does.
function pyString(s) {
  const text = JSON.stringify(s);
  return /[^ -~]/.test(text)
    ? text.replace(/[^ -~]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
    : text;
}

function pyDumps(value) {
  if (typeof value === 'string') return pyString(value);
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return '[' + value.map(pyDumps).join(', ') + ']';
  const parts = [];
  for (const key of Object.keys(value)) parts.push(pyString(key) + ': ' + pyDumps(value[key]));
  return '{' + parts.join(', ') + '}';
}

function isoTime(ms) {
  return new Date(ms).toISOString();
}

function idFor(rng, ms) {
  const iso = isoTime(ms);
  return `evt_${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}` +
    `${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}_${rng.hex(8)}`;
}

function makeParams(rng, type, pools, path) {
  switch (type) {
  case 'FILE_CREATE':
  case 'FILE_EDIT':
    return { path, content_summary: rng.pick(pools.summaries) };
  case 'FILE_DELETE':
    return { path };
  case 'CMD_RUN':
    return { command: rng.pick(COMMANDS), exit_code: rng.pick([0, 0, 0, 0, 1, 2]) };
  case 'SESSION_START':
    return { session_id: `sess_${rng.hex(12)}`, model: rng.pick(MODELS) };
  default:
    return { scope: path, depth: rng.int(1, 5) };
  }
}

// One event, built as its writer builds it and encoded as it encodes it.
function encode(w, e) {
  if (w === 'journal.js') {
    const o = { id: e.id, timestamp: e.timestamp, agent: e.agent, status: e.status,
      action: e.action, result: e.result };
    if (e.trace) o.trace = e.trace;
    return JSON.stringify(o);
  }
  if (w === 'tasks.py') {
    const action = { type: e.action.type, params: e.action.params };
    if (e.action.input !== undefined) action.input = e.action.input;
    const o = { agent: e.agent, id: e.id, timestamp: e.timestamp, status: e.status,
      action, result: e.result };
    if (e.trace) o.trace = e.trace;
    return pyDumps(o);
  }
  const o = { timestamp: e.timestamp, id: e.id, agent: e.agent, action: e.action,
    status: e.status };
  if (e.trace) o.trace = e.trace;
  o.result = e.result;
  return JSON.stringify(o);
}

function generate(out, sizeMb, seed) {
  const rng = makeRng(seed);
  const pools = buildPools(rng);
  const agentOf = rng.weighted(AGENTS, AGENT_WEIGHTS);
  const statusOf = rng.weighted(STATUSES, STATUS_WEIGHTS);
  const actionOf = rng.weighted(ACTIONS, ACTION_WEIGHTS);
  const writerOf = rng.weighted(WRITERS, WRITER_WEIGHTS);
  const target = Math.floor(sizeMb * 1048576);
  const fd = fs.openSync(out, 'w');
  let clock = Date.UTC(2025, 8, 3, 14, 25, 10, 591); // §2.2's example
  let written = 0, lines = 0, rare = 0, taskNo = 0;
  let nextRare = rng.int(100, 2000);
  const tasks = [];

  function newTask() {
    const agent = agentOf();
    taskNo++;
    return {
      agent, writer: agent === 'System' ? 'hook' : writerOf(),
      corr: rng.float() < 0.7 ? `task_${rng.hex(6)}_${taskNo}` : null,
      left: rng.float() < 0.4 ? 1 : rng.int(2, 30), last: null,
    };
  }

  while (written < target) {
    const batch = [];
    let bytes = 0;
    while (bytes < 4 << 20 && written + bytes < target) {
      while (tasks.length < 3 && (tasks.length === 0 || rng.float() < 0.3)) tasks.push(newTask());
      const k = Math.floor(rng.float() * tasks.length);
      const task = tasks[k];
      // Bursts inside a task, quiet stretches between them.
      clock += rng.float() < 0.9 ? rng.int(20, 1500) : rng.int(1500, 12000);
      const at = task.writer === 'hook' ? clock - rng.int(0, 1500) : clock;
      // A task's first event may open an agent session.
      const type = task.last === null && rng.float() < 0.25 ? 'SESSION_START' : actionOf();
      const path = rng.pick(pools.paths);
      const action = { type };
      if (rng.float() < 0.45) action.input = rng.pick(PROMPTS);
      action.params = makeParams(rng, type, pools, path);
      const result = { message: rng.pick(pools.messages) };
      if (type.startsWith('FILE_')) result.artifacts = [path];
      const e = { id: idFor(rng, at), timestamp: isoTime(at), agent: task.agent,
        status: statusOf(), action, result };
      if (lines === nextRare) {
        e.trace = { correlation_id: RARE_ID };
        nextRare += rng.int(RARE_EVERY / 2, RARE_EVERY * 3 / 2);
        rare++;
      } else if (task.corr) {
        e.trace = { correlation_id: task.corr };
        if (task.last && rng.float() < 0.4) e.trace.parent_id = task.last;
      }
      task.last = e.id;
      if (--task.left === 0) tasks.splice(k, 1);
      const line = encode(task.writer, e) + '\n';
      batch.push(line);
      bytes += Buffer.byteLength(line);
      lines++;
    }
    fs.writeSync(fd, batch.join(''));
    written += bytes;
  }
  fs.closeSync(fd);
  return { written, lines, rare };
}

function main(argv) {
  const args = argv.slice();
  let seed = 42;
  const at = args.indexOf('--seed');
  if (at >= 0) {
    seed = Number(args[at + 1]);
    args.splice(at, 2);
  }
  const sizeMb = Number(args[1]);
  if (args.length !== 2 || !(sizeMb > 0) || !Number.isInteger(seed)) {
    process.stderr.write('usage: gen_journal_seed004.js OUT SIZE_MB [--seed N]\n');
    return 2;
  }
  const t0 = process.hrtime.bigint();
  const { written, lines, rare } = generate(args[0], sizeMb, seed);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stderr.write(`${args[0]}: ${written} bytes, ${lines} lines, ${rare} events ` +
    `of the rare correlation id ${RARE_ID}, ${secs.toFixed(1)}s\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
