import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { run, snapshot } from '../broken-input/project.ts';
import { webhookProject } from '../scaffold/webhook-project.ts';
import { applyCrdMutation, crdMutation } from '../types/crd-mutants.ts';

/**
 * Property: with a mutated op-gen.yaml (a line deleted, duplicated, re-indented, stray punctuation,
 * a value of the wrong kind), every command that reads it either succeeds or exits 1 and writes
 * nothing; never an internal error or a stack. Before the file's shape
 * was checked, `apiDir: true` was an internal error in every generator. OP_GEN_FUZZ_RUNS sets the
 * count (default 15; `npm run test:fuzz` runs 300).
 */
const RUNS = process.env.OP_GEN_FUZZ_RUNS === 'all' ? 300 : Number(process.env.OP_GEN_FUZZ_RUNS ?? 15);

const COMMANDS = [
  ['generate', 'crd'],
  ['generate', 'rbac'],
  ['generate', 'client'],
  ['generate', 'webhook'],
  ['generate', 'helm'],
  ['generate', 'docs'],
  ['bundle', '--version', '0.1.0'],
  ['build-installer', '--image', 'example.com/demo:0.1.0'],
];

describe('a mutated op-gen.yaml never gives an internal error or a half-written project', () => {
  let dir: string;
  let original: string;
  before(async () => {
    dir = await webhookProject();
    original = readFileSync(join(dir, 'op-gen.yaml'), 'utf8');
  });
  after(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('every command succeeds on the unmutated project', async () => {
    for (const argv of COMMANDS) {
      const r = await run(dir, ...argv);
      assert.equal(r.code, 0, `${argv.join(' ')}: ${r.err}`);
    }
  });

  it(`holds for ${RUNS} mutants`, async () => {
    await fc.assert(
      fc.asyncProperty(crdMutation, async (m) => {
        const { text, description } = applyCrdMutation(original, m);
        try {
          writeFileSync(join(dir, 'op-gen.yaml'), text);
          for (const argv of COMMANDS) {
            const prior = snapshot(dir);
            const r = await run(dir, ...argv);
            const context = `${description}\n${argv.join(' ')}: exit ${r.code}\n${r.err}`;
            assert.ok(r.code === 0 || r.code === 1, context);
            assert.doesNotMatch(r.err, /internal error|\n\s+at /, context);
            if (r.code === 1) assert.deepEqual(snapshot(dir), prior, `nothing written\n${context}`);
          }
        } finally {
          // Back to the generated state of the unmutated project for the next draw.
          writeFileSync(join(dir, 'op-gen.yaml'), original);
          for (const argv of COMMANDS) await run(dir, ...argv);
        }
      }),
      {
        numRuns: RUNS,
        endOnFailure: true,
        ...(process.env.OP_GEN_FUZZ_SEED ? { seed: Number(process.env.OP_GEN_FUZZ_SEED) } : {}),
      },
    );
  });
});
