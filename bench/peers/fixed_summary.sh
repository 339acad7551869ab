#!/bin/sh
# The benchmark's summariser, for agentctl (summarizer.command) and for
# bench/peers/seed_compact.js alike: reads the messages, prints a fixed
# summary, so both sides do the same work around it.
cat >/dev/null
echo "The user and the assistant worked through the build failures; see the archive."
