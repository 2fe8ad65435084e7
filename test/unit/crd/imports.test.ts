import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateCrds } from '../../../src/generate/crd/index.ts';

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

describe('types imported across files and packages', () => {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-crd-imports-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('follows relative imports, re-exports and npm packages with declarations, markers included', async () => {
    write(root, {
      'node_modules/@acme/shared/package.json': JSON.stringify({
        name: '@acme/shared',
        types: './index.d.ts',
        exports: { '.': { types: './index.d.ts' } },
      }),
      'node_modules/@acme/shared/index.d.ts': [
        'export interface Endpoint {',
        '  /**',
        '   * host of the endpoint.',
        '   * @format hostname',
        '   */',
        '  host: string;',
        '  /**',
        '   * port of the endpoint.',
        '   * @minimum 1',
        '   */',
        '  port?: number;',
        '}',
        '',
      ].join('\n'),
      'src/api/common/index.ts': "export type { Level } from './level.ts';\n",
      'src/api/common/level.ts': "/** Level of detail. */\nexport type Level = 'low' | 'high';\n",
      'src/api/net/v1/groupversion.ts':
        "export const groupVersion = { group: 'net.example.com', version: 'v1' } as const;\n",
      'src/api/net/v1/link.ts': [
        "import type { ObjectMeta } from 'op-gen';",
        "import type { Endpoint } from '@acme/shared';",
        "import type { Level } from '../../common/index.ts';",
        '/** @kind */',
        'export interface Link {',
        '  metadata?: ObjectMeta;',
        '  spec: { target: Endpoint; level?: Level };',
        '}',
        '',
      ].join('\n'),
    });
    const { crds } = await generateCrds({ cwd: root, check: true });
    const spec = crds[0]?.spec.versions[0]?.schema.openAPIV3Schema.properties?.spec;
    assert.deepEqual(spec?.properties?.target?.properties?.host, {
      description: 'host of the endpoint.',
      format: 'hostname',
      type: 'string',
    });
    assert.deepEqual(spec?.properties?.target?.required, ['host']);
    assert.deepEqual(spec?.properties?.target?.properties?.port, {
      description: 'port of the endpoint.',
      minimum: 1,
      type: 'number',
    });
    assert.deepEqual(spec?.properties?.level, {
      description: 'Level of detail.',
      enum: ['low', 'high'],
      type: 'string',
    });
  });
});
