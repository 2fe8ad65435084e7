import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { generateTypes, readCrds } from '../../../src/generate/types/index.ts';

const FIXTURE = new URL('../../fixtures/client/api/', import.meta.url).pathname;
const WORK = new URL('./tmp-roundtrip/tmp/', import.meta.url).pathname;
const TSC = new URL('../../../node_modules/typescript/bin/tsc', import.meta.url).pathname;

/**
 * TS types → generate crd → generate types: the generated Widget must be the same type as the
 * hand-written one (mutually assignable, field by field), which tsc proves.
 */
describe('round trip: TypeScript types → CRD → TypeScript types', () => {
  after(() =>
    rmSync(new URL('./tmp-roundtrip/', import.meta.url).pathname, { recursive: true, force: true }),
  );

  it('gives equivalent types for the demo Widget', async () => {
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    cpSync(FIXTURE, join(WORK, 'api'), { recursive: true });
    await generateCrds({ cwd: WORK, apiDir: 'api', outDir: 'crds' });
    await generateTypes({ cwd: WORK, crds: readCrds(join(WORK, 'crds')), outDir: 'types' });
    writeFileSync(
      join(WORK, 'check.ts'),
      [
        "import type { Widget as Original } from './api/demo/v1/widget_types.ts';",
        "import type { Widget as Generated } from './types/demo.example.com/v1/widget.ts';",
        'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;',
        "export const spec: Same<Original['spec'], Generated['spec']> = true;",
        "export const status: Same<NonNullable<Original['status']>, NonNullable<Generated['status']>> = true;",
        "export const meta: Same<Original['metadata'], Generated['metadata']> = true;",
      ].join('\n'),
    );
    writeFileSync(
      join(WORK, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2023',
          allowImportingTsExtensions: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['check.ts'],
      }),
    );
    const r = spawnSync(process.execPath, [TSC, '-p', WORK], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout);
  });
});
