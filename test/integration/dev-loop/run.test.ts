import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { defineKind } from '../../../src/client/kind.ts';
import { ResourceClient } from '../../../src/client/resource-client.ts';
import { Transport } from '../../../src/client/transport.ts';
import { createApi } from '../../../src/scaffold/create-api.ts';
import { initProject } from '../../../src/scaffold/init.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';

/**
 * `op-gen run` end to end on a scaffold against the real control plane: the CRD is installed and the
 * manager reconciles the sample; an edited field marker (`@maximum 10` -> `@maximum 20`) reaches the
 * CRD in the cluster and the restarted manager reconciles an object only the new CRD admits; SIGINT
 * (Ctrl-C) leaves no process of the manager's process group behind. The project is scaffolded without
 * npm install: its node_modules links op-gen's (this working tree and its dependencies), so the test
 * takes seconds, not the minute an install takes.
 */

const OP_GEN_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OP_GEN_BIN = join(OP_GEN_ROOT, 'bin/op-gen.js');

const quiet = (): Writable => new Writable({ write: (_c, _e, done) => done() });

/** node_modules of the project: every package of op-gen's node_modules, and op-gen itself. */
function linkNodeModules(project: string): void {
  const target = join(project, 'node_modules');
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(join(OP_GEN_ROOT, 'node_modules'))) {
    symlinkSync(join(OP_GEN_ROOT, 'node_modules', entry), join(target, entry));
  }
  symlinkSync(OP_GEN_ROOT, join(target, 'op-gen'));
}

interface Sample extends KubernetesObject {
  spec?: { size?: number };
  status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
}

describe(
  'op-gen run on a scaffold, against the test control plane',
  { timeout: 180_000, skip: controlPlaneSkip() },
  () => {
    const work = mkdtempSync(join(tmpdir(), 'op-gen-run-'));
    const project = join(work, 'memcached-operator');
    let cp: ControlPlane | undefined;
    let run: ChildProcess | undefined;
    let output = '';
    /** The latest manager's pid (its process group), for cleanup after a failure. */
    let managerPid: number | undefined;

    before(async () => {
      assert.ok(
        existsSync(join(OP_GEN_ROOT, 'dist/cli/main.js')),
        'op-gen is not built: run `npm run build` first',
      );
      const io = { stdout: quiet(), stderr: quiet() };
      const started = startControlPlane();
      await initProject(
        { dir: project, domain: 'example.com', skipInstall: true, opGenPath: OP_GEN_ROOT },
        io,
      );
      await createApi(
        {
          dir: project,
          group: 'cache',
          version: 'v1alpha1',
          kind: 'Memcached',
          example: 'deployment',
          skipGenerate: true,
        },
        io,
      );
      linkNodeModules(project);
      cp = await started;
    });

    after(async () => {
      if (run && run.exitCode === null && run.signalCode === null) {
        // A failed test: let op-gen run stop its manager, then make sure.
        run.kill('SIGINT');
        await Promise.race([new Promise((r) => run?.once('exit', r)), sleep(15_000)]);
        if (run.exitCode === null && run.signalCode === null) run.kill('SIGKILL');
      }
      if (managerPid !== undefined) {
        try {
          process.kill(-managerPid, 'SIGKILL');
        } catch {
          // gone, as it should be
        }
      }
      await cp?.stop();
      if (process.env.OP_GEN_KEEP_E2E) console.log(`# kept ${project}`);
      else rmSync(work, { recursive: true, force: true });
    });

    /** Waits until op-gen run has printed a line matching `pattern` (after `from` characters of output). */
    const waitFor = async (pattern: RegExp, from: number, timeoutMs: number): Promise<RegExpMatchArray> => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const m = output.slice(from).match(pattern);
        if (m) return m;
        if (run?.exitCode !== null) break;
        await sleep(50);
      }
      assert.fail(`op-gen run did not print ${pattern} within ${timeoutMs} ms; output:\n${output}`);
    };

    const objects = (): KubernetesObjectApi => KubernetesObjectApi.makeApiClient(cp!.kubeConfig);
    const crdMaximum = async (): Promise<unknown> => {
      const crd = (await objects().read({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'memcacheds.cache.example.com' },
      })) as KubernetesObject & {
        spec: {
          versions: {
            schema: {
              openAPIV3Schema: { properties: { spec: { properties: { size: { maximum?: number } } } } };
            };
          }[];
        };
      };
      return crd.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties.size.maximum;
    };
    /** A merge patch of the sample's spec.size (op-gen's client: client-node sends force on merge patches). */
    const patchSize = async (size: number): Promise<Sample> => {
      const transport = await Transport.fromKubeConfig(cp!.kubeConfig);
      try {
        const memcacheds = new ResourceClient<Sample>(
          transport,
          defineKind<Sample>({
            group: 'cache.example.com',
            version: 'v1alpha1',
            kind: 'Memcached',
            plural: 'memcacheds',
            namespaced: true,
          }),
        );
        return await memcacheds.patch({ namespace: 'default', name: 'memcached-sample' }, 'merge', {
          spec: { size },
        });
      } finally {
        transport.close();
      }
    };
    const readyFor = async (generation: number | undefined, timeoutMs: number): Promise<Sample> => {
      const deadline = Date.now() + timeoutMs;
      let last: Sample | undefined;
      while (Date.now() < deadline) {
        last = (await objects().read({
          apiVersion: 'cache.example.com/v1alpha1',
          kind: 'Memcached',
          metadata: { name: 'memcached-sample', namespace: 'default' },
        })) as Sample;
        const ready = last.status?.conditions?.find((c) => c.type === 'Ready');
        if (
          ready?.status === 'True' &&
          ready.observedGeneration === (generation ?? last.metadata?.generation)
        )
          return last;
        await sleep(100);
      }
      assert.fail(
        `the sample did not report Ready for generation ${generation}: ${JSON.stringify(last?.status)}\n${output}`,
      );
    };

    it('installs the CRD, starts the manager, reloads on a marker edit, and stops cleanly on Ctrl-C', async () => {
      const t0 = Date.now();
      run = spawn(
        process.execPath,
        [OP_GEN_BIN, 'run', '--', '--metrics-bind-address=0', '--health-probe-bind-address=0'],
        {
          cwd: project,
          env: { ...process.env, KUBECONFIG: cp!.kubeconfigPath, CI: 'true' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      run.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      run.stderr?.on('data', (d: Buffer) => (output += d.toString()));

      // What it works against comes first, before anything changes.
      const firstLine = await waitFor(/^.*\n/, 0, 20_000);
      assert.equal(
        firstLine[0],
        `op-gen run: kubeconfig context "${cp!.kubeConfig.getCurrentContext()}", server ${cp!.server}\n`,
      );
      const started = await waitFor(/started the manager \(pid (\d+)\)/, 0, 60_000);
      const firstPid = Number(started[1]);
      managerPid = firstPid;
      console.log(`# first round (generate, apply, build, start): ${Date.now() - t0} ms`);
      assert.match(output, /applied CRD: memcacheds\.cache\.example\.com/);
      assert.equal(await crdMaximum(), 10);

      // The manager reconciles the sample.
      const sample = {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        metadata: { name: 'memcached-sample', namespace: 'default' },
        spec: { size: 1, image: 'registry.k8s.io/pause:3.10' },
      };
      await objects().create(sample);
      await readyFor(undefined, 30_000);
      // size 15 is over the maximum of the CRD in the cluster.
      await assert.rejects(patchSize(15), /maximum|less than or equal/i);

      // Edit a field marker in the API type.
      const apiFile = join(project, 'src/api/cache/v1alpha1/memcached.ts');
      const source = readFileSync(apiFile, 'utf8');
      assert.match(source, /@maximum 10\n/);
      const mark = output.length;
      const savedAt = Date.now();
      writeFileSync(apiFile, source.replace('@maximum 10\n', '@maximum 20\n'));
      const restarted = await waitFor(
        /restarted the manager \(pid (\d+)\) (\d+) ms after the change/,
        mark,
        45_000,
      );
      const reloadMs = Date.now() - savedAt;
      console.log(
        `# reload: ${restarted[2]} ms from the first file event to the new manager (reported); ${reloadMs} ms from the save to the line seen by the test`,
      );
      const afterEdit = output.slice(mark);
      assert.match(afterEdit, /changed: src\/api\/cache\/v1alpha1\/memcached\.ts/);
      assert.match(afterEdit, /applied CRD: memcacheds\.cache\.example\.com/);
      assert.equal(await crdMaximum(), 20, 'the CRD in the cluster has the new maximum');
      const secondPid = Number(restarted[1]);
      managerPid = secondPid;
      assert.notEqual(secondPid, firstPid);
      assert.throws(
        () => process.kill(-firstPid, 0),
        { code: 'ESRCH' },
        'no process of the first manager is left',
      );

      // The restarted manager reconciles an object only the new CRD admits.
      const patched = (await patchSize(15)) as Sample;
      await readyFor(patched.metadata?.generation, 30_000);

      // A save without a change starts no round. The signal that the watcher is past it: a real
      // change saved after it starts a round whose first line names only that file (had the save
      // counted, a round for it would come first, or this one would name the API file too).
      const markNoop = output.length;
      writeFileSync(apiFile, readFileSync(apiFile, 'utf8'));
      writeFileSync(join(project, 'src/probe.ts'), 'export const probe = 1;\n');
      const probeRound = await waitFor(/restarted the manager \(pid (\d+)\)/, markNoop, 45_000);
      const noopRounds = output.slice(markNoop).match(/^changed: .*$/gm) ?? [];
      assert.deepEqual(noopRounds, ['changed: src/probe.ts'], 'the save without a change started no round');
      const thirdPid = Number(probeRound[1]);
      managerPid = thirdPid;
      assert.throws(
        () => process.kill(-secondPid, 0),
        { code: 'ESRCH' },
        'no process of the second manager is left',
      );

      // Ctrl-C: op-gen run stops the manager and exits 0; nothing of the manager's group is left.
      const exited = new Promise<number | null>((resolve) => run!.once('exit', (code) => resolve(code)));
      run.kill('SIGINT');
      const code = await Promise.race([exited, sleep(20_000).then(() => 'timeout' as const)]);
      assert.equal(code, 0, `op-gen run exited ${code} on SIGINT:\n${output}`);
      assert.match(output, /op-gen run: stopped\n$/);
      assert.throws(
        () => process.kill(-thirdPid, 0),
        { code: 'ESRCH' },
        `processes of the manager's group ${thirdPid} outlived op-gen run`,
      );
      assert.throws(() => process.kill(thirdPid, 0), { code: 'ESRCH' }, 'the manager process is gone');
    });
  },
);
