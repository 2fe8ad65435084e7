import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { MINIFIED_TYPESCRIPT } from '../../../src/source/typescript.ts';

/**
 * The build's copy of the compiler (scripts/vendor.mjs) takes node:crypto when it uses it, not when
 * it starts: a child process (its script on stdin: `node -e` itself loads node:crypto) loads it,
 * type-checks a file, lists Node's modules, then asks for a hash, which must be the SHA-256 the
 * original gives.
 */
describe('the vendored TypeScript compiler', () => {
  it('loads node:crypto only when asked for a hash', (t) => {
    if (!existsSync(MINIFIED_TYPESCRIPT))
      return t.skip('dist/vendor/typescript.cjs is not built (npm run build)');
    const script = `
      const ts = require(${JSON.stringify(MINIFIED_TYPESCRIPT)});
      const loaded = (name) => process.moduleLoadList.includes('NativeModule ' + name);
      const host = ts.createCompilerHost({});
      const file = ts.createSourceFile('a.ts', 'export const a: number = 1;', ts.ScriptTarget.ES2022);
      host.getSourceFile = (name, target) => (name === 'a.ts' ? file : undefined);
      const program = ts.createProgram(['a.ts'], { noLib: true, types: [] }, host);
      ts.getPreEmitDiagnostics(program);
      const before = loaded('crypto');
      const hash = ts.sys.createHash('op-gen');
      process.stdout.write(JSON.stringify({ before, hash, after: loaded('crypto'), now: typeof ts.timestamp() }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=commonjs'], { input: script, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      before: false,
      hash: createHash('sha256').update('op-gen').digest('hex'),
      after: true,
      now: 'number',
    });
  });
});
