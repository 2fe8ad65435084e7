import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Test-only tools `npm run setup:envtest` builds from Go modules into ~/.cache/op-gen/bin (or
 * $OP_GEN_TOOLS_DIR): `kustomize` (the oracle op-gen's kustomize renderer is compared with) and
 * `helm` (lint, template and install of the generated chart).
 */
export type Tool = 'kustomize' | 'helm';

export function toolsDir(): string {
  return (
    process.env.OP_GEN_TOOLS_DIR ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'op-gen', 'bin')
  );
}

export function toolPath(tool: Tool): string | undefined {
  const path = join(toolsDir(), tool);
  return existsSync(path) ? path : undefined;
}

/**
 * For `describe(name, { skip: toolSkip('helm') }, ...)`: false when the tool is built; else the reason
 * to skip, and under CI an error (a CI run must not skip silently).
 */
export function toolSkip(tool: Tool): string | false {
  if (toolPath(tool)) return false;
  const reason = `${tool} is not built in ${toolsDir()}: run npm run setup:envtest`;
  if (process.env.CI) throw new Error(`CI is set and ${reason}`);
  return reason;
}
