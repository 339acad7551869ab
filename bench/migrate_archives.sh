#!/usr/bin/env bash
# storage migrate's rate for compaction archives: SESSIONS sessions with
# PER archive files each (.agent/sessions/.compactions/<id>/<stamp>.json,
# 10 messages of about 200 bytes, laid out as core/ac_archive.c writes
# them) copied into an empty PostgreSQL database (--to), a second time
# (nothing new), and back into an empty workspace (--from), whose archive
# files must come back byte-equal (checked). Prints wall time for each;
# judges nothing.
#
#   tests/pg/with-postgres.sh bench/migrate_archives.sh AGENTCTL [SESSIONS] [PER]
set -euo pipefail

AC=$(realpath "${1:?usage: $0 AGENTCTL [SESSIONS] [PER]}")
SESSIONS=${2:-20}
PER=${3:-50}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/agentctl-migrate-archives-bench.XXXXXX")
DB=agentctl_migrate_archives_bench_$$
psql -Atqc "CREATE DATABASE $DB" >/dev/null
trap 'psql -Atqc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
URL="postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/$DB"
WS=$TMP/ws
mkdir -p "$WS/.agent" "$TMP/ws2/.agent"
for s in $(seq 1 "$SESSIONS"); do
	"$AC" -w "$WS" session create "bench" --id "b$s" --tenant acme --user u --agent a >/dev/null
done
python3 - "$WS/.agent/sessions" "$SESSIONS" "$PER" <<'PY'
import json, os, sys
root, sessions, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for s in range(1, sessions + 1):
    d = os.path.join(root, ".compactions", "b%d" % s)
    os.makedirs(d, exist_ok=True)
    for i in range(per):
        msgs = [{"role": "user" if k % 2 == 0 else "assistant", "content": "x" * 200 + str(k)}
                for k in range(10)]
        doc = {"sessionId": "b%d" % s, "createdAt": "2026-01-01T00:00:00.000Z", "messages": msgs}
        name = "20260101T%06d.%03dZ.json" % (i // 1000, i % 1000)
        with open(os.path.join(d, name), "w") as f:
            f.write(json.dumps(doc, indent=2))
PY
timed() { # timed LABEL CMD...: wall time and the archives' line
	local label=$1 start end
	shift
	start=$(date +%s%N)
	"$@" >"$TMP/out" 2>&1 || true
	end=$(date +%s%N)
	printf '%-8s %6d ms  %s\n' "$label" $(((end - start) / 1000000)) "$(grep -m1 '^compaction archives:' "$TMP/out")"
}
timed --to "$AC" -w "$WS" storage migrate --to "$URL"
timed again "$AC" -w "$WS" storage migrate --to "$URL"
timed --from "$AC" -w "$TMP/ws2" storage migrate --from "$URL"
diff -r "$WS/.agent/sessions/.compactions" "$TMP/ws2/.agent/sessions/.compactions" >/dev/null &&
	echo "archive files back byte-equal: yes" || echo "archive files back byte-equal: NO"
