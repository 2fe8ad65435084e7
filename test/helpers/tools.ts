import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

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

/**
 * `kustomize build <dir>` with the kustomize `npm run setup:envtest` builds (the one `kubectl
 * kustomize` embeds), so tests of kustomize builds need no kubectl, which the project never installs.
 */
export function kustomizeBuild(dir: string): SpawnSyncReturns<string> {
  const kustomize = toolPath('kustomize');
  if (!kustomize) throw new Error(`kustomize is not built in ${toolsDir()}: run npm run setup:envtest`);
  return spawnSync(kustomize, ['build', dir], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

/**
 * Runs `fn` with a `kubectl` first on PATH that answers `kubectl kustomize <dir>` with the kustomize
 * `setup:envtest` builds (and refuses anything else): the code path op-gen takes when kubectl is
 * installed, tested without one.
 */
export function withKubectlShim<T>(fn: () => T): T {
  const kustomize = toolPath('kustomize');
  if (!kustomize) throw new Error(`kustomize is not built in ${toolsDir()}: run npm run setup:envtest`);
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-kubectl-shim-'));
  writeFileSync(
    join(dir, 'kubectl'),
    `#!/bin/sh\nif [ "$1" = kustomize ]; then shift; exec ${JSON.stringify(kustomize)} build "$@"; fi\n` +
      'echo "kubectl shim: only kustomize" >&2\nexit 1\n',
    { mode: 0o755 },
  );
  const path = process.env.PATH;
  process.env.PATH = `${dir}${delimiter}${path ?? ''}`;
  try {
    return fn();
  } finally {
    process.env.PATH = path;
    rmSync(dir, { recursive: true, force: true });
  }
}
