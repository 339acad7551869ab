#!/usr/bin/env bash
# `session export --format html` renders a message's Markdown (issue 27,
# "Wording and frames"): headings, emphasis, code spans and fenced blocks,
# lists and links to http/https/mailto become HTML; raw HTML, event
# handler attributes and javascript:/data: links stay escaped text; tool
# calls stay text in <pre>. The page still forbids scripts (its CSP).
set -u
. "$(dirname "$0")/lib/cli.sh" "$@"
WS=$TMP/ws
mkdir -p "$WS/.agent/sessions"
python3 - "$WS/.agent/sessions/md1.json" <<'PY'
import json, sys
text = ("# Plan\n\nUse **bold**, *em* and `a<b>` here.\n\n- one\n- two\n\n"
        "```sh\nrm -rf <dir> && echo '\"'\n```\n\n"
        "[docs](https://example.com/d?a=1&b=2) [bad](javascript:alert(1)) [data](data:text/html,x)\n\n"
        "<script>alert(1)</script> <img src=x onerror=alert(2)>\n\n```\nunterminated")
json.dump({"id": "md1", "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z",
           "task": "t", "status": "completed", "metadata": {},
           "conversationHistory": [
               {"role": "assistant", "content": text},
               {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "run",
                                                   "input": {"cmd": "**not bold**"}}]}]},
          open(sys.argv[1], "w"))
PY
out_has() { grep -qF -- "$1" "$TMP/out"; }
run session export md1 --format html
check "exit 0" rc_is 0
check "a heading" out_has "<h4>Plan</h4>"
check "emphasis and a code span" out_has "Use <strong>bold</strong>, <em>em</em> and <code>a&lt;b&gt;</code> here."
check "a list" out_has "<ul>"
check "a fenced block, escaped" out_has "<pre><code>rm -rf &lt;dir&gt; &amp;&amp; echo &#39;&quot;&#39;"
check "an https link, its & escaped, rel set" \
	out_has '<a href="https://example.com/d?a=1&amp;b=2" rel="noopener noreferrer">docs</a>'
check "a javascript: link stays text" out_has "[bad](javascript:alert(1))"
check "a data: link stays text" out_has "[data](data:text/html,x)"
check "no link but the https one" bash -c "[ \$(grep -o '<a ' '$TMP/out' | wc -l) = 1 ]"
check "no script element" bash -c "! grep -qi '<script' '$TMP/out'"
check "no img element" bash -c "! grep -qi '<img' '$TMP/out'"
check "raw HTML shown as text" out_has "&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;"
check "an unterminated fence is closed" out_has "<pre><code>unterminated"
check "tool input stays text" out_has '&quot;cmd&quot;: &quot;**not bold**&quot;'
check "the CSP forbids scripts" out_has "script-src 'none'"
finish
