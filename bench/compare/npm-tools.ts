import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The npm tools `generate types` is compared with, at pinned versions. */
export const NPM_TOOLS = {
  'cdk8s-cli': '2.207.60',
  '@kubernetes-models/crd-generate': '5.1.0',
} as const;

const toolsDir = join(
  process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
  'op-gen',
  'bench-npm',
  Object.entries(NPM_TOOLS)
    .map(([name, version]) => `${name.replace(/[@/]/g, '_')}-${version}`)
    .join('+'),
);

export interface NpmTools {
  /** `cdk8s` CLI entry (a Node script). */
  readonly cdk8s: string;
  /** `crd-generate` CLI entry (a Node script). */
  readonly crdGenerate: string;
}

/**
 * cdk8s-cli and @kubernetes-models/crd-generate, installed by the bench (not by tests) into a cache
 * folder with npm on first use. Undefined, with the reason printed, when npm cannot install them.
 */
export function npmTools(): NpmTools | undefined {
  const tools: NpmTools = {
    cdk8s: join(toolsDir, 'node_modules/cdk8s-cli/bin/cdk8s'),
    crdGenerate: join(toolsDir, 'node_modules/@kubernetes-models/crd-generate/bin/crd-generate.js'),
  };
  if (existsSync(tools.cdk8s) && existsSync(tools.crdGenerate)) return tools;
  mkdirSync(toolsDir, { recursive: true });
  writeFileSync(join(toolsDir, 'package.json'), '{ "name": "op-gen-bench-tools", "private": true }\n');
  console.log(`installing ${Object.keys(NPM_TOOLS).join(' and ')} into ${toolsDir} (about a minute) ...`);
  const r = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', ...Object.entries(NPM_TOOLS).map(([n, v]) => `${n}@${v}`)],
    { cwd: toolsDir, stdio: 'inherit' },
  );
  if (r.status !== 0) {
    console.log('npm install of the comparison tools failed: generate types is measured alone.');
    return undefined;
  }
  return tools;
}
