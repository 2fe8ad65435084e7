// Plain JavaScript loaded by bin/op-gen.js: how a finished command ends the process.

/** The kinds of the resources that keep the process's event loop alive (`TTYWrap`, `PipeWrap`, `Timeout`, ...), sorted. */
function activeResources(proc) {
  return proc.getActiveResourcesInfo().slice().sort();
}

/** The resources of a process before its command: stdout and stderr (opened here if not yet). */
export function resourcesBeforeCommand(proc) {
  if (proc.stdout.writableLength + proc.stderr.writableLength > 0) return [];
  return activeResources(proc);
}

/**
 * True when a finished command left nothing for the process to do: no resource beyond those it had
 * before the command ran (`before`, from resourcesBeforeCommand), no output still
 * waiting to be written (a pipe can be full; exiting would cut it), no `beforeExit` listener.
 */
export function idleAfterCommand(proc, before) {
  if (proc.stdout.writableLength > 0 || proc.stderr.writableLength > 0) return false;
  if (proc.listenerCount('beforeExit') > 0) return false;
  const left = before.slice();
  for (const resource of activeResources(proc)) {
    const i = left.indexOf(resource);
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}
