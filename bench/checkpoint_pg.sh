#!/usr/bin/env bash
# Checkpoint create, checkpoint rollback and session fork on one session of
# MESSAGES messages (~300 bytes each), the session a file and the same
# session in PostgreSQL (copied by `storage migrate`): hyperfine, the
# command's whole run (start, connect, read, write). The server: the one
# PG* variables name, else a throwaway cluster from pg_virtualenv with
# fsync on.
#   bench/checkpoint_pg.sh [AGENTCTL] [MESSAGES]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ac=$(realpath "${1:-$here/../build-rel/agentctl}")
n=${2:-5000}

if [ -z "${PGHOST:-}${PGPORT:-}" ]; then
  exec pg_virtualenv -t -o fsync=on "$0" "$ac" "$n"
fi
runs=${RUNS:-10}
data=$(mktemp -d)
db=bench_ckpt_$$
psql -Atqc "CREATE DATABASE $db" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1; rm -rf "$data"' EXIT
url="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$db"
sql() { psql -d "$db" -Atq -v ON_ERROR_STOP=1 -c "$1"; }
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg); PostgreSQL $(psql -Atc 'show server_version'), fsync=$(psql -Atc 'show fsync'); $n messages"

ws=$data/ws
mkdir -p "$ws/.agent/sessions"
python3 - "$ws/.agent/sessions/b1.json" "$n" <<'EOF'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
text = "the build fails in src/server.c because the config loader returns null " * 4
history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"{i} {text}"}
           for i in range(n)]
doc = {"id": "b1", "createdAt": "2026-01-01T00:00:00.000Z",
       "updatedAt": "2026-01-01T00:00:00.000Z", "task": "bench", "status": "running",
       "conversationHistory": history,
       "metadata": {"tenantId": "acme", "userId": "u1", "agentId": "claude"}}
with open(path, "w") as f:
    json.dump(doc, f, indent=2)
EOF
"$ac" -w "$ws" storage migrate --to "$url" >/dev/null
# One checkpoint at the whole history in each store, to roll back to.
"$ac" -w "$ws" checkpoint create b1 --id base >/dev/null
"$ac" -w "$ws" --storage "$url" checkpoint create b1 --id base >/dev/null
# The prepare steps as scripts (hyperfine runs them with sh): one more
# message in the file or in the database for the rollback to remove, and
# the fork removed before the next.
cat >"$data/file_extra.py" <<EOF
import json
p = "$ws/.agent/sessions/b1.json"
d = json.load(open(p))
d["conversationHistory"].append({"role": "user", "content": "one more"})
json.dump(d, open(p, "w"), indent=2)
EOF
cat >"$data/pg_extra.sql" <<'EOF'
insert into agentctl.messages select 'acme', 'b1', last_seq + 1, '{"role":"user","content":"one more"}'
  from agentctl.sessions where id = 'b1';
update agentctl.sessions set last_seq = last_seq + 1, message_count = message_count + 1 where id = 'b1';
EOF
echo "delete from agentctl.sessions where id = 'f1';" >"$data/pg_unfork.sql"

echo "| command | store | mean ± σ (ms) | min (ms) |"
echo "|---|---|---:|---:|"
# hyperfine pairs the n-th --prepare with the n-th command.
hyperfine --runs "$runs" --style none --export-json "$data/all.json" \
  --prepare true --prepare true \
  --prepare "python3 $data/file_extra.py" --prepare "psql -d $db -Atq -f $data/pg_extra.sql" \
  --prepare "rm -f $ws/.agent/sessions/f1.json" \
  --prepare "psql -d $db -Atq -f $data/pg_unfork.sql" \
  -n "checkpoint create, files" "$ac -w $ws checkpoint create b1" \
  -n "checkpoint create, PostgreSQL" "$ac -w $ws --storage $url checkpoint create b1" \
  -n "checkpoint rollback (1 message), files" "$ac -w $ws checkpoint rollback b1 base --yes" \
  -n "checkpoint rollback (1 message), PostgreSQL" "$ac -w $ws --storage $url checkpoint rollback b1 base --yes" \
  -n "session fork, files" "$ac -w $ws session fork b1 --id f1" \
  -n "session fork, PostgreSQL" "$ac -w $ws --storage $url session fork b1 --id f1" \
  >/dev/null
python3 - "$data/all.json" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    cmd, store = r["command"].rsplit(", ", 1)
    print(f"| {cmd} | {store} | {r['mean'] * 1000:.1f} ± {r['stddev'] * 1000:.1f} | {r['min'] * 1000:.1f} |")
EOF
