import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BuildOutcome } from '../../../src/dev-loop/build.ts';
import type { CrdManifest, CrdSyncResult } from '../../../src/dev-loop/crd-sync.ts';
import { DevLoop, type DevLoopDeps } from '../../../src/dev-loop/dev-loop.ts';
import { OpGenError } from '../../../src/errors.ts';
import { FakeClock } from './fake-clock.ts';

/** A dev loop over fakes that records every step in order. */
function harness(overrides: Partial<DevLoopDeps> = {}) {
  const steps: string[] = [];
  const lines: string[] = [];
  const clock = new FakeClock();
  let pid = 100;
  let running: number | undefined;
  let generateResult: () => Promise<{ crds: CrdManifest[]; written: string[] }> = async () => ({
    crds: [{ metadata: { name: 'memcacheds.cache.example.com' } }],
    written: [],
  });
  let buildResult: BuildOutcome = { ok: true, output: '' };
  let changed = (paths: readonly string[]): readonly string[] => paths;
  const deps: DevLoopDeps = {
    cwd: '/p',
    clock,
    generate: () => {
      steps.push('generate');
      clock.advance(300);
      return generateResult();
    },
    syncCrds: async (crds): Promise<CrdSyncResult> => {
      steps.push(`sync ${crds.length}`);
      return { applied: crds.map((c) => c.metadata.name), unchanged: [], dropped: [] };
    },
    build: async () => {
      steps.push('build');
      // The build takes its time after the CRDs, applied alongside, are done (a real build outlasts them).
      await new Promise((resolve) => setImmediate(resolve));
      clock.advance(500);
      return buildResult;
    },
    manager: {
      get pid() {
        return running;
      },
      get running() {
        return running !== undefined;
      },
      start() {
        running = ++pid;
        steps.push(`start ${running}`);
      },
      async stop() {
        steps.push(`stop ${running}`);
        clock.advance(100);
        running = undefined;
      },
    },
    changedPaths: (paths) => changed(paths),
    generatorWrote: (paths) => steps.push(`wrote ${paths.join(',')}`),
    log: (line) => lines.push(line),
    ...overrides,
  };
  return {
    loop: new DevLoop(deps),
    steps,
    lines,
    clock,
    setGenerate: (f: typeof generateResult) => (generateResult = f),
    setBuild: (b: BuildOutcome) => (buildResult = b),
    setChanged: (f: typeof changed) => (changed = f),
  };
}

describe('DevLoop', () => {
  it('first round: generate, apply the CRDs, build, start; a change: the same, then restart', async () => {
    const h = harness();
    await h.loop.start();
    assert.deepEqual(h.steps, ['generate', 'wrote ', 'sync 1', 'build', 'start 101']);
    h.steps.length = 0;
    const saveAt = h.clock.now();
    h.clock.advance(100); // the debounce
    await h.loop.changed(['/p/src/api/cache/v1alpha1/memcached.ts'], saveAt);
    assert.deepEqual(h.steps, ['generate', 'wrote ', 'sync 1', 'build', 'stop 101', 'start 102']);
    assert.deepEqual(
      h.loop.rounds.map((r) => r.outcome),
      ['started', 'restarted'],
    );
    assert.equal(h.loop.rounds[1]?.elapsedMs, 100 + 300 + 500 + 100, 'from the save to the new manager');
    assert.ok(h.lines.includes('changed: src/api/cache/v1alpha1/memcached.ts'));
    assert.deepEqual(h.loop.rounds[1]?.stepsMs, {
      waited: 100,
      generate: 300,
      build: 500,
      crds: 0,
      stop: 100,
    });
    assert.ok(
      h.lines.includes(
        'restarted the manager (pid 102) 1000 ms after the change: waited 100, generate 300, build 500 (CRDs 0 alongside), stop 100 ms',
      ),
      h.lines.join('\n'),
    );
  });

  it('a change with no content change does nothing', async () => {
    const h = harness();
    await h.loop.start();
    h.steps.length = 0;
    h.setChanged(() => []);
    await h.loop.changed(['/p/src/main.ts'], h.clock.now());
    assert.deepEqual(h.steps, []);
    assert.equal(h.loop.rounds.length, 1);
  });

  it('a generator error is reported and the running manager kept', async () => {
    const h = harness();
    await h.loop.start();
    h.steps.length = 0;
    h.setGenerate(async () => {
      throw new OpGenError('src/api/x.ts:3: @minimum: expected a number');
    });
    await h.loop.changed(['/p/src/api/x.ts'], h.clock.now());
    assert.deepEqual(h.steps, ['generate']);
    assert.equal(h.loop.rounds.at(-1)?.outcome, 'generate-failed');
    assert.ok(h.lines.includes('generate failed:\nsrc/api/x.ts:3: @minimum: expected a number'));
    assert.ok(h.lines.includes('the manager keeps running the previous build; waiting for the next change'));
  });

  it('a failed build prints the compiler output and does not restart', async () => {
    const h = harness();
    await h.loop.start();
    h.steps.length = 0;
    h.setBuild({ ok: false, output: "src/main.ts(1,1): error TS2304: Cannot find name 'x'.\n" });
    await h.loop.changed(['/p/src/main.ts'], h.clock.now());
    assert.deepEqual(h.steps, ['generate', 'wrote ', 'sync 1', 'build']);
    assert.ok(h.lines.some((l) => l.includes('error TS2304')));
  });

  it('changes before a round starts join it; changes during a round start exactly one more round', async () => {
    const h = harness();
    await h.loop.start();
    h.steps.length = 0;
    let release: () => void = () => undefined;
    h.setGenerate(() => new Promise((r) => (release = () => r({ crds: [], written: [] }))));
    const first = h.loop.changed(['/p/src/a.ts'], 0);
    void h.loop.changed(['/p/src/a2.ts'], 0); // before the round began: the same round
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(h.steps, ['generate'], 'the round is running');
    void h.loop.changed(['/p/src/b.ts'], 0);
    const last = h.loop.changed(['/p/src/c.ts'], 0);
    h.setGenerate(async () => ({ crds: [], written: [] }));
    release();
    await first;
    await last;
    assert.deepEqual(
      h.loop.rounds.map((r) => r.trigger),
      [[], ['src/a.ts', 'src/a2.ts'], ['src/b.ts', 'src/c.ts']],
    );
    assert.equal(h.steps.filter((s) => s === 'build').length, 2);
  });

  it('a refused CRD is reported and the manager not started (the build ran alongside)', async () => {
    const refusing = harness({
      syncCrds: async () => {
        throw new OpGenError('applying 1 CRD(s) failed:\n  memcacheds.cache.example.com: Invalid');
      },
    });
    await refusing.loop.start();
    assert.equal(refusing.loop.rounds.at(-1)?.outcome, 'crd-failed');
    assert.deepEqual(refusing.steps, ['generate', 'wrote ', 'build']);
    assert.ok(refusing.lines.includes('applying 1 CRD(s) failed:\n  memcacheds.cache.example.com: Invalid'));
    assert.ok(refusing.lines.includes('waiting for the next change'));
  });

  it('records the files the generators wrote so they do not start a round', async () => {
    const h = harness();
    h.setGenerate(async () => ({ crds: [], written: ['src/clients/memcached.ts', 'config/rbac/role.yaml'] }));
    await h.loop.start();
    assert.ok(h.steps.includes('wrote /p/src/clients/memcached.ts,/p/config/rbac/role.yaml'));
  });

  it('stop stops the manager and ignores later changes', async () => {
    const h = harness();
    await h.loop.start();
    await h.loop.stop();
    assert.equal(h.steps.at(-1), 'stop 101');
    h.steps.length = 0;
    await h.loop.changed(['/p/src/a.ts'], 0);
    assert.deepEqual(h.steps, []);
  });

  it('stop during a build kills it and starts no manager', async () => {
    let releaseBuild: (b: BuildOutcome) => void = () => undefined;
    let aborted = false;
    const h = harness({
      build: (signal) => {
        signal.addEventListener('abort', () => {
          aborted = true;
          releaseBuild({ ok: false, output: '' });
        });
        return new Promise((r) => (releaseBuild = r));
      },
    });
    const started = h.loop.start();
    await new Promise((r) => setImmediate(r));
    await h.loop.stop();
    await started;
    assert.ok(aborted);
    assert.ok(!h.steps.some((s) => s.startsWith('start')), h.steps.join(';'));
    assert.equal(h.loop.rounds.at(-1)?.outcome, 'stopped');
  });
});
