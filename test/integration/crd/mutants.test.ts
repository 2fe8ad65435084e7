import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { parse } from 'yaml';
import {
  controlPlaneSkip,
  installCrd,
  startControlPlane,
  type ControlPlane,
} from '../../../src/testing/index.ts';
import { mutate, mutationChoice, type Mutant } from '../../unit/broken-input/mutants.ts';
import { copyProject, run, scaffoldTemplate } from '../../unit/broken-input/project.ts';
import { assertFloor, fuzzRuns } from '../../helpers/fuzz-runs.ts';

/**
 * The other half of issue 14's property: a mutant of the scaffolded API that `generate crd` accepts
 * gives a CRD the real API server accepts. Each mutant's CRD goes in under a group of its own.
 */
const RUNS = fuzzRuns(40, 400);
const API_FILES = ['src/api/cache/v1alpha1/memcached.ts', 'src/api/cache/v1alpha1/groupversion.ts'];

interface Crd {
  metadata: { name: string };
  spec: { group: string; names: { plural: string } };
}

describe(
  'CRDs of accepted mutants on a real API server',
  { timeout: 600_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    let template = '';
    let cleanup = (): void => undefined;
    before(async () => {
      ({ dir: template, cleanup } = await scaffoldTemplate());
      cp = await startControlPlane();
    });
    after(async () => {
      await cp?.stop();
      cleanup();
    });

    it(`the API server accepts every CRD generate crd writes for ${RUNS} mutants`, async (t) => {
      const work = copyProject(template, 'mutants-apply');
      const originals = API_FILES.map((path) => ({ path, text: readFileSync(join(template, path), 'utf8') }));
      const mutants = new Map<string, Mutant>();
      for (const choice of fc.sample(mutationChoice, { numRuns: RUNS * 3, seed: 14 })) {
        const m = mutate(originals, choice);
        if (m && !m.goMarker) mutants.set(m.text, m);
        if (mutants.size >= RUNS) break;
      }
      let accepted = 0;
      for (const [i, mutant] of [...mutants.values()].entries()) {
        for (const o of originals)
          writeFileSync(join(work, o.path), o.path === mutant.file ? mutant.text : o.text);
        rmSync(join(work, 'config/crd/bases'), { recursive: true, force: true });
        const r = await run(work, 'generate', 'crd');
        if (r.code !== 0) continue;
        const dir = join(work, 'config/crd/bases');
        for (const file of readdirSync(dir)) {
          const crd = parse(readFileSync(join(dir, file), 'utf8')) as Crd;
          crd.spec.group = `m${i}.${crd.spec.group}`;
          crd.metadata.name = `${crd.spec.names.plural}.${crd.spec.group}`;
          await assert.doesNotReject(installCrd(cp.kubeConfig, crd), `${mutant.description}\n${file}`);
          accepted++;
        }
      }
      t.diagnostic(`ran ${mutants.size} mutants`);
      assert.equal(mutants.size, RUNS, `${RUNS * 3} draws gave only ${mutants.size} distinct mutants`);
      assertFloor(t, 'CRDs of accepted mutants installed', accepted, RUNS * 0.1);
    });
  },
);
