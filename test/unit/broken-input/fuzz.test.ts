import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { allMutants, CompilerOracle, GO_MARKERS, mutate, mutationChoice, type Mutant } from './mutants.ts';
import { copyProject, run, scaffoldTemplate, snapshot } from './project.ts';

/**
 * Property: for a mutant of the scaffolded project's API sources, whenever the TypeScript compiler
 * (real lib, op-gen's real modules) reports a syntax error or an unresolved name or module in an API
 * file, generate crd, client and rbac exit 1 and write nothing; a Go-form
 * marker is an error at its line; otherwise each either fails with a file:line message (writing
 * nothing) or succeeds (crd with a CRD). Never an internal error. `npm test` draws 30 mutants at
 * random; a failure prints the seed and the shrunk mutant (OP_GEN_FUZZ_SEED replays it). With
 * OP_GEN_FUZZ_RUNS=all (`npm run test:fuzz`) or a number at or above the count of distinct mutants,
 * every one is run in a fixed order and every failure is reported at the end: random draws from a few thousand mutants would repeat long before they covered them.
 */
const RUNS = process.env.OP_GEN_FUZZ_RUNS === 'all' ? Infinity : Number(process.env.OP_GEN_FUZZ_RUNS ?? 30);
const API_FILES = ['src/api/cache/v1alpha1/memcached.ts', 'src/api/cache/v1alpha1/groupversion.ts'];
const COMMANDS = [
  ['generate', 'crd'],
  ['generate', 'client'],
  ['generate', 'rbac'],
] as const;

describe('mutated API sources never give a wrong artifact with exit 0', () => {
  let template = '';
  let cleanup = (): void => undefined;
  let work = '';
  const oracle = new CompilerOracle();
  let originals: { path: string; text: string }[] = [];
  before(async () => {
    ({ dir: template, cleanup } = await scaffoldTemplate());
    work = copyProject(template, 'fuzz');
    originals = API_FILES.map((path) => ({ path, text: readFileSync(join(template, path), 'utf8') }));
  });
  after(() => cleanup());

  const apiTexts = (mutant?: Mutant): Map<string, string> =>
    new Map(
      originals.map((o) => [join(work, o.path), mutant && mutant.file === o.path ? mutant.text : o.text]),
    );

  it('the unmutated project compiles and generates (the oracle and the fixture agree)', async () => {
    assert.deepEqual(oracle.errors(apiTexts(), true), []);
    for (const argv of COMMANDS) assert.equal((await run(work, ...argv)).code, 0, argv.join(' '));
  });

  /** The property for one mutant: every generator fails cleanly when it must, and never writes a wrong artifact. */
  async function checkMutant(mutant: Mutant): Promise<void> {
    // A fresh copy of the generated state: the generators' outputs as the unmutated project has them.
    for (const o of originals)
      writeFileSync(join(work, o.path), o.path === mutant.file ? mutant.text : o.text);
    const compilerErrors = oracle.errors(apiTexts(mutant));
    const go = mutant.goMarker && GO_MARKERS.find((m) => m.text === mutant.goMarker?.marker);
    for (const argv of COMMANDS) {
      const prior = snapshot(work);
      const r = await run(work, ...argv);
      const cmd = argv.join(' ');
      const context: string = `${mutant.description}\n${cmd}: exit ${r.code}\n${r.err}\ncompiler: ${compilerErrors.join('\n')}`;
      assert.notEqual(r.code, 70, `internal error\n${context}`);
      const mustFail = compilerErrors.length > 0 || (go !== undefined && (argv[1] !== 'rbac' || go.rbac));
      if (mustFail) assert.equal(r.code, 1, `must fail\n${context}`);
      if (go && mustFail) {
        assert.match(
          r.err,
          new RegExp(
            `${mutant.file.replaceAll('.', '\\.')}:${mutant.goMarker?.line}: [+@]kubebuilder|:${mutant.goMarker?.line}: \\+\\w`,
          ),
          `the Go-form marker is reported at its line\n${context}`,
        );
      }
      if (r.code !== 0) {
        assert.equal(r.code, 1, context);
        // file:line, or (when the mutant removed every @kind, so there is no line to point at) the API folder.
        assert.match(
          r.err,
          /^op-gen: ([^\s:]+:\d+(:\d+)?: |[^\s:]+: no kinds found\. )/,
          `a file:line message\n${context}`,
        );
        assert.deepEqual(snapshot(work), prior, `nothing written\n${context}`);
      } else if (argv[1] === 'crd') {
        assert.ok(
          [...snapshot(join(work, 'config/crd/bases')).values()].some((t) =>
            t.includes('CustomResourceDefinition'),
          ),
          context,
        );
      }
    }
  }

  it(`holds for ${RUNS === Infinity ? 'every' : RUNS} mutant${RUNS === 1 ? '' : 's'}`, async () => {
    const all = allMutants(originals);
    assert.ok(all.length > 1000, `the mutation space has ${all.length} mutants`);
    if (RUNS >= all.length) {
      const failures: string[] = [];
      for (const mutant of all) {
        try {
          await checkMutant(mutant);
        } catch (err) {
          failures.push(err instanceof Error ? err.message : String(err));
        }
      }
      assert.deepEqual(failures, [], `${failures.length} of ${all.length} mutants fail`);
      return;
    }
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(mutationChoice, async (choice) => {
        const mutant = mutate(originals, choice);
        fc.pre(mutant !== undefined && !seen.has(mutant.text));
        if (!mutant) return;
        seen.add(mutant.text);
        await checkMutant(mutant);
      }),
      {
        numRuns: RUNS,
        endOnFailure: true,
        ...(process.env.OP_GEN_FUZZ_SEED ? { seed: Number(process.env.OP_GEN_FUZZ_SEED) } : {}),
      },
    );
  });

  after(() => rmSync(work, { recursive: true, force: true }));
});
