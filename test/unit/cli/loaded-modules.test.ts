import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { renderTypeScript, syntheticApi, writeFiles } from '../../../bench/synthetic-api.ts';

const BIN = new URL('../../../bin/op-gen.js', import.meta.url).pathname;

/**
 * Node's modules a generator never needs, each of which cost every run resident memory (issue 36,
 * docs/performance.md): node:crypto (a temp file name), worker_threads, parseArgs and the diff
 * module (read by node:util's ES facade), child_process with net and dgram (commander's executable
 * subcommands), the process report (node:process's facade).
 */
const NOT_NEEDED = [
  'NativeModule crypto',
  'NativeModule worker_threads',
  'NativeModule internal/util/parse_args/parse_args',
  'NativeModule internal/util/diff',
  'NativeModule child_process',
  'NativeModule dgram',
  'NativeModule internal/process/report',
];

describe('what a generate run loads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-loaded-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // Writes, as the process ends, the list of Node's modules it loaded (process.moduleLoadList).
  const preload = join(dir, 'loaded-modules.cjs');
  writeFileSync(
    preload,
    "process.on('exit', () => process.getBuiltinModule('node:fs').writeFileSync(process.env.LOADED_MODULES, JSON.stringify(process.moduleLoadList)));\n",
  );
  const project = join(dir, 'project');
  writeFiles(project, renderTypeScript(syntheticApi({ kinds: 3, fields: 5 })));

  function loadedBy(args: readonly string[], cwd = project): string[] {
    const list = join(dir, 'loaded.json');
    const run = spawnSync(process.execPath, ['--require', preload, BIN, ...args], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, LOADED_MODULES: list },
    });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(readFileSync(list, 'utf8')) as string[];
  }

  it('generate crd writes its CRDs without loading what it does not need', () => {
    const loaded = loadedBy(['generate', 'crd', '--out', 'crds']);
    assert.equal(readdirSync(join(project, 'crds')).length, 3);
    assert.ok(loaded.includes('NativeModule fs'), 'the list is the real one');
    assert.deepEqual(
      NOT_NEEDED.filter((m) => loaded.includes(m)),
      [],
    );
  });

  it('nor on an API with CEL rules (kueue, from the corpus), whose check runs the CEL checker', () => {
    const kueue = join(dir, 'kueue');
    cpSync(new URL('../../corpus/kueue/api', import.meta.url), join(kueue, 'api'), { recursive: true });
    const loaded = loadedBy(['generate', 'crd', '--api-dir', 'api', '--out', 'crds'], kueue);
    assert.ok(readdirSync(join(kueue, 'crds')).length > 0);
    assert.deepEqual(
      NOT_NEEDED.filter((m) => loaded.includes(m)),
      [],
    );
  });

  it('nor does --help', () => {
    const loaded = loadedBy(['generate', 'crd', '--help']);
    assert.deepEqual(
      NOT_NEEDED.filter((m) => loaded.includes(m)),
      [],
    );
  });
});
