#!/usr/bin/env bash
# Fails when the working tree differs from the commit: a changed tracked file (a golden a test rewrote)
# or an untracked file a run left behind. .ci/run calls it after the tests; ignored files do not count.
set -euo pipefail
if ! git diff --exit-code --stat; then
  echo "CI: the run changed the tracked files above (a rewritten golden?); nothing may change in CI" >&2
  exit 1
fi
untracked=$(git status --porcelain --untracked-files=all | sed -n 's/^?? //p')
if [ -n "$untracked" ]; then
  printf 'CI: the run left untracked files in the repository:\n%s\n' "$untracked" >&2
  exit 1
fi
