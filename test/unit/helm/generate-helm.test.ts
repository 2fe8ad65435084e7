import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { generateHelm } from '../../../src/generate/helm/index.ts';
import { assertGoldenDir } from '../../helpers/golden.ts';
import { webhookProject } from '../scaffold/webhook-project.ts';
import { sampleProject } from '../bundle/project.ts';

const GOLDEN = new URL('../../golden/helm/', import.meta.url).pathname;
const IMAGE = 'registry.example.com/demo:0.1.0';

/** Every file of the chart folder by its path in the folder. */
function chartFiles(dir: string): Map<string, string> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  return new Map(
    files.map((e) => [
      relative(dir, join(e.parentPath, e.name)),
      readFileSync(join(e.parentPath, e.name), 'utf8'),
    ]),
  );
}

describe('op-gen generate helm', () => {
  it('writes the chart of a scaffolded project with webhooks (golden)', async () => {
    const project = await webhookProject();
    const result = await generateHelm({ cwd: project, image: IMAGE, renderer: 'op-gen' });
    assert.equal(result.written.length, result.files.length);
    assertGoldenDir(join(GOLDEN, 'webhooks'), chartFiles(join(project, 'dist/chart')));
    // Deterministic, and --check agrees.
    assert.deepEqual(
      (await generateHelm({ cwd: project, image: IMAGE, renderer: 'op-gen', check: true })).written,
      [],
    );
  });

  it('writes the chart of a project without webhooks: toggles off, no webhook templates (golden)', async () => {
    const project = sampleProject();
    await generateHelm({ cwd: project, renderer: 'op-gen' });
    assertGoldenDir(join(GOLDEN, 'no-webhooks'), chartFiles(join(project, 'dist/chart')));
    const values = readFileSync(join(project, 'dist/chart/values.yaml'), 'utf8');
    assert.match(values, /webhook:\n {2}enable: false/);
    assert.match(values, /repository: memcached-operator\n {4}tag: latest/);
  });

  it('--check reports an edited template; a stale generated template is removed', async () => {
    const project = sampleProject();
    await generateHelm({ cwd: project, renderer: 'op-gen' });
    const manager = join(project, 'dist/chart/templates/manager/manager.yaml');
    writeFileSync(manager, `${readFileSync(manager, 'utf8')}# edited\n`);
    assert.deepEqual((await generateHelm({ cwd: project, renderer: 'op-gen', check: true })).written, [
      relative(project, manager),
    ]);
    const stale = join(project, 'dist/chart/templates/rbac/gone.yaml');
    writeFileSync(stale, readFileSync(join(project, 'dist/chart/templates/rbac/manager-role.yaml'), 'utf8'));
    const mine = join(project, 'dist/chart/templates/extra/mine.yaml');
    writeFileSync(join(project, 'dist/chart/templates/rbac/mine.yaml'), '# my own template\n');
    const result = await generateHelm({ cwd: project, renderer: 'op-gen' });
    assert.deepEqual(result.removed, [relative(project, stale)]);
    assert.equal(existsSync(stale), false);
    assert.equal(existsSync(join(project, 'dist/chart/templates/rbac/mine.yaml')), true);
    assert.equal(existsSync(mine), false);
  });
});
