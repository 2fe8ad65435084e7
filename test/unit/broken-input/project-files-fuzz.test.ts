import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { run, snapshot } from './project.ts';
import { webhookProject } from '../scaffold/webhook-project.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';
import { applyCrdMutation, crdMutation } from '../types/crd-mutants.ts';

/**
 * Property: with one of the project's own files mutated (op-gen.yaml, the CSV base, kustomizations,
 * the manager Deployment, a sample; a line deleted, duplicated, re-indented, stray punctuation, a
 * value of the wrong kind), every generator, `bundle`, `bundle validate` and `build-installer`
 * either succeeds or exits 1 and writes nothing; never an internal error or a stack. Found this way:
 * `apiDir: true` in op-gen.yaml was an internal error in every generator, and an alias without its
 * anchor in config/manager/kustomization.yaml one in build-installer. OP_GEN_FUZZ_RUNS sets the
 * count (default 12; `npm run test:fuzz` runs 500).
 */
const RUNS = fuzzRuns(12, 500);

const FILES = [
  'op-gen.yaml',
  'config/manifests/bases/demo.clusterserviceversion.yaml',
  'config/default/kustomization.yaml',
  'config/default/manager_webhook_patch.yaml',
  'config/manager/kustomization.yaml',
  'config/manager/manager.yaml',
  'config/crd/kustomization.yaml',
  'config/rbac/kustomization.yaml',
  'config/samples/kustomization.yaml',
  'config/samples/cache_v1_memcached.yaml',
  'config/prometheus/monitor.yaml',
  'config/crd/bases/cache.example.com_memcacheds.yaml',
  'bundle/manifests/demo.clusterserviceversion.yaml',
  'bundle/manifests/cache.example.com_memcacheds.yaml',
  'bundle/metadata/annotations.yaml',
];

const COMMANDS = [
  ['generate', 'crd'],
  ['generate', 'rbac'],
  ['generate', 'client'],
  ['generate', 'webhook'],
  ['generate', 'helm'],
  ['generate', 'docs'],
  ['bundle', '--version', '0.1.0'],
  ['build-installer', '--image', 'example.com/demo:0.1.0'],
  ['bundle', 'validate', 'bundle'],
];

describe('a mutated project file (op-gen.yaml, config/) never gives an internal error or a half-written project', () => {
  let dir: string;
  let originals: string[];
  const baseline: string[] = [];
  before(async () => {
    dir = await webhookProject();
    // The unmutated project, every output written (the bundle too, whose files are mutated below).
    for (const argv of COMMANDS) {
      const r = await run(dir, ...argv);
      if (r.code !== 0) baseline.push(`${argv.join(' ')}: exit ${r.code}: ${r.err}`);
    }
    originals = FILES.map((f) => readFileSync(join(dir, f), 'utf8'));
  });
  after(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('every command succeeds on the unmutated project', () => {
    assert.deepEqual(baseline, []);
  });

  it(`holds for ${RUNS} mutants`, async (t) => {
    let refused = 0;
    await assertProperty(
      t,
      fc.asyncProperty(fc.nat(), crdMutation, fc.boolean(), async (at, m, reversed) => {
        const file = FILES[at % FILES.length] ?? 'op-gen.yaml';
        const mutated = applyCrdMutation(originals[at % FILES.length] ?? '', m);
        const description = `${file}: ${mutated.description}${reversed ? ' (commands in reverse order)' : ''}`;
        // In reverse order, bundle validate, build-installer and bundle read the mutated file before
        // a generator writes it again.
        const commands = reversed ? [...COMMANDS].reverse() : COMMANDS;
        let failed = false;
        try {
          writeFileSync(join(dir, file), mutated.text);
          for (const argv of commands) {
            const prior = snapshot(dir);
            const r = await run(dir, ...argv);
            const context = `${description}\n${argv.join(' ')}: exit ${r.code}\n${r.err}`;
            assert.ok(r.code === 0 || r.code === 1, context);
            assert.doesNotMatch(r.err, /internal error|\n\s+at /, context);
            if (r.code === 1) {
              failed = true;
              assert.deepEqual(snapshot(dir), prior, `nothing written\n${context}`);
            }
          }
          if (failed) refused++;
        } finally {
          // Back to the generated state of the unmutated project for the next draw.
          FILES.forEach((f, i) => writeFileSync(join(dir, f), originals[i] ?? ''));
          for (const argv of COMMANDS) await run(dir, ...argv);
        }
      }),
      RUNS,
      { endOnFailure: true },
    );
    assertFloor(t, 'mutants a command refused (exit 1, nothing written)', refused, RUNS * 0.1);
  });
});
