import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateClients } from '../../../src/generate/client/index.ts';

const FIXTURE = new URL('../../fixtures/', import.meta.url).pathname;
const GOLDEN = new URL('../../golden/client/', import.meta.url).pathname;

describe('generate client', () => {
  const out = mkdtempSync(join(tmpdir(), 'op-gen-client-'));
  after(() => rmSync(out, { recursive: true, force: true }));

  it('--check lists the files it would write and writes nothing', async () => {
    const result = await generateClients({
      cwd: join(FIXTURE, 'client'),
      apiDir: 'api',
      outDir: 'gen-out',
      check: true,
    });
    assert.deepEqual(result.files, ['gen-out/demo.example.com/v1/widget.ts', 'gen-out/index.ts']);
    assert.deepEqual(result.changed, result.files);
    assert.throws(() => readFileSync(join(FIXTURE, 'client', 'gen-out', 'index.ts')));
  });

  it('qualifies names when a kind has several versions, and is deterministic', async () => {
    const first = await generateClients({ cwd: join(FIXTURE, 'crd'), apiDir: 'api', outDir: join(out, 'a') });
    const index = readFileSync(join(out, 'a', 'index.ts'), 'utf8');
    assert.match(index, /storeV1: new StoreV1Client\(transport\)/);
    assert.match(index, /storeV1alpha1: new StoreV1alpha1Client\(transport\)/);
    assert.match(index, /backup: new BackupClient\(transport\)/);
    const second = await generateClients({
      cwd: join(FIXTURE, 'crd'),
      apiDir: 'api',
      outDir: join(out, 'a'),
    });
    assert.deepEqual(second.changed, []);
    assert.equal(first.files.length, second.files.length);
  });

  it('matches the golden files', async () => {
    // A copy of the fixture project, so the generated imports are the project-relative ones a user gets.
    const project = join(out, 'project');
    cpSync(join(FIXTURE, 'client', 'api'), join(project, 'src', 'api'), { recursive: true });
    await generateClients({ cwd: project });
    for (const file of ['demo.example.com/v1/widget.ts', 'index.ts']) {
      const actual = readFileSync(join(project, 'src', 'client', file), 'utf8');
      if (process.env.UPDATE_GOLDEN) {
        const { writeFileSync } = await import('node:fs');
        mkdirSync(join(GOLDEN, file, '..'), { recursive: true });
        writeFileSync(join(GOLDEN, file), actual);
      }
      assert.equal(actual, readFileSync(join(GOLDEN, file), 'utf8'), `${file} differs from the golden`);
    }
  });

  it('fails clearly when the API folder is not an API folder', async () => {
    const empty = join(out, 'empty');
    mkdirSync(empty);
    await assert.rejects(
      generateClients({ cwd: empty, apiDir: '.', outDir: 'x' }),
      /no groupversion\.ts found/,
    );
  });
});
