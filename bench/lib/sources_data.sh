# The transcript set of bench/sources.sh and bench/sources_search.sh
# (sourced, after agentctl=...): COUNT x SIZE_KB transcripts (default
# 10,000 of ~300 KB, about 3 GB) made once by bench/gen_sources.py under
# bench/data/sources-COUNT-SIZE_KB; sets here, data, home, ws, cache and
# total (MB), and reads every file into the page cache.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
count=${COUNT:-10000}
size_kb=${SIZE_KB:-300}
data="$here/data/sources-$count-$size_kb"
home="$data/home"
ws="$data/ws"
cache="$data/cache"
mkdir -p "$ws/.agent/sessions"
ws=$(realpath "$ws")

if [ ! -f "$data/done" ]; then
    echo "$(basename "$0"): generating $count transcripts of ~$size_kb KB under $home" >&2
    rm -rf "$home"
    python3 "$here/gen_sources.py" "$home" "$ws" "$count" "$size_kb"
    touch "$data/done"
fi
total=$(du -sm "$home" | cut -f1)
find "$home" -name '*.jsonl' -exec cat {} + > /dev/null  # into the page cache
