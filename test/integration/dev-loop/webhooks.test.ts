import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { defineKind } from '../../../src/client/kind.ts';
import { ResourceClient, type ObjectLike } from '../../../src/client/resource-client.ts';
import { Transport } from '../../../src/client/transport.ts';
import { freePort } from '../../../src/testing/free-port.ts';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { run as opGen, tempDir } from '../../unit/scaffold/helpers.ts';

/**
 * `op-gen run` serving a scaffold's webhooks against the real control plane: a CronJob with v1 (hub)
 * and v2, defaulting + validation on v1 and conversion between the two, scaffolded by the CLI and
 * filled in as a user would. Under op-gen run the API server calls the local manager: a create the
 * validator refuses is refused, a default is applied, v1 is read at v2 through the converter. After
 * SIGTERM, and after a kill -9 followed by `op-gen run --cleanup` or the next `op-gen run`, the cluster
 * takes writes again: the webhook configurations are gone and the CRD's conversion is None again.
 */

const OP_GEN_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OP_GEN_BIN = join(OP_GEN_ROOT, 'bin/op-gen.js');
const CRD = 'cronjobs.batch.example.com';

/**
 * Whether every process of a group has ended. A killed process stays visible to kill(0) until its
 * parent reaps it; an orphan's new parent (here PID 1) does that a moment later, so a zombie
 * (state Z in /proc) counts as ended.
 */
function groupEnded(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pgid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') === true;
  } catch {
    return true;
  }
}

/** Waits until the group has ended, at most `ms`; false if it still runs then. */
async function groupEndsWithin(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!groupEnded(pgid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

function linkNodeModules(project: string): void {
  const target = join(project, 'node_modules');
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(join(OP_GEN_ROOT, 'node_modules')))
    symlinkSync(join(OP_GEN_ROOT, 'node_modules', entry), join(target, entry));
  symlinkSync(OP_GEN_ROOT, join(target, 'op-gen'));
}

/** Replaces one text in a project file, failing when it is not there. */
function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes(from), `${file}: no ${JSON.stringify(from)}`);
  writeFileSync(file, text.replace(from, to));
}

/** `export interface CronJobSpec { ... }` of a version replaced by `spec`. */
function writeSpec(root: string, version: string, spec: string): void {
  const types = join(root, 'src/api/batch', version, 'cron-job.ts');
  const text = readFileSync(types, 'utf8');
  const start = text.indexOf('export interface CronJobSpec {');
  const end = text.indexOf('\n}\n', start);
  assert.ok(start >= 0 && end > start, `${types}: no CronJobSpec`);
  writeFileSync(types, text.slice(0, start) + spec + text.slice(end + 3));
}

interface CronJob extends ObjectLike {
  spec?: { schedule?: string; cron?: string };
}

const cronJobs = (transport: Transport, version: 'v1' | 'v2') =>
  new ResourceClient<CronJob>(
    transport,
    defineKind<CronJob>({
      group: 'batch.example.com',
      version,
      kind: 'CronJob',
      plural: 'cronjobs',
      namespaced: true,
    }),
  );

describe('op-gen run serves the project webhooks', { timeout: 400_000, skip: controlPlaneSkip() }, () => {
  const tmp = tempDir('op-gen-run-webhooks-');
  const root = join(tmp.dir, 'cron-operator');
  let cp: ControlPlane | undefined;
  let transport: Transport | undefined;
  const children: { child: ChildProcess; output: () => string }[] = [];
  const managerPids: number[] = [];

  before(async () => {
    assert.ok(existsSync(join(OP_GEN_ROOT, 'dist/cli/main.js')), 'op-gen is not built: run `npm run build`');
    const started = startControlPlane();
    const op = async (cwd: string, ...args: string[]): Promise<void> => {
      const r = await opGen(cwd, ...args);
      assert.equal(r.code, 0, `op-gen ${args.join(' ')}:\n${r.out}${r.err}`);
    };
    await op(tmp.dir, 'init', root, '--domain', 'example.com', '--skip-install', '--owner', 'Example');
    await op(root, 'create', 'api', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob');
    await op(root, 'create', 'api', '--group', 'batch', '--version', 'v2', '--kind', 'CronJob');
    writeSpec(root, 'v1', 'export interface CronJobSpec {\n  schedule?: string;\n}\n');
    writeSpec(root, 'v2', 'export interface CronJobSpec {\n  cron?: string;\n}\n');
    for (const generator of ['crd', 'rbac', 'client']) await op(root, 'generate', generator);
    const webhook = (...flags: string[]) =>
      op(root, 'create', 'webhook', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob', ...flags);
    await webhook('--defaulting', '--programmatic-validation');
    await webhook('--conversion', '--spoke', 'v2');
    // The user's rules: a default schedule, "never" refused, v1 schedule <-> v2 cron.
    const handlers = join(root, 'src/webhooks/batch/v1/cron-job.webhook.ts');
    edit(
      handlers,
      "ctx.log.debug('defaulting', { name: obj.metadata.name });",
      "obj.spec.schedule ??= '@daily';",
    );
    edit(
      handlers,
      '// TODO(user): your rules, with `field` from op-gen/runtime, e.g.',
      "if (obj.spec.schedule === 'never') errors.push(field.invalid(field.path('spec', 'schedule'), obj.spec.schedule, 'never runs'));",
    );
    edit(handlers, '  ValidationError,', '  ValidationError,\n  field,');
    const conversion = join(root, 'src/webhooks/batch/v1/cron-job.conversion.ts');
    const text = readFileSync(conversion, 'utf8');
    const to = text.indexOf('return { ...rest, spec: { ...spec }');
    const from = text.indexOf('return { ...rest, spec: { ...spec }', to + 1);
    writeFileSync(
      conversion,
      text.slice(0, to) +
        'return { ...rest, spec: { schedule: spec.cron } }; //' +
        text.slice(to + 6, from) +
        'return { ...rest, spec: { cron: spec.schedule } }; //' +
        text.slice(from + 6),
    );
    linkNodeModules(root);
    cp = await started;
    transport = await Transport.fromKubeConfig(cp.kubeConfig);
  });

  after(async () => {
    for (const { child } of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const pid of managerPids) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    transport?.close();
    await cp?.stop();
    if (process.env.OP_GEN_KEEP_E2E) console.log(`# kept ${root}`);
    else tmp.cleanup();
  });

  const opGenRun = (...args: string[]) => {
    let output = '';
    const child = spawn(
      process.execPath,
      [OP_GEN_BIN, 'run', ...args, '--', '--metrics-bind-address=0', '--health-probe-bind-address=0'],
      {
        cwd: root,
        env: { ...process.env, KUBECONFIG: cp!.kubeconfigPath, CI: 'true' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const entry = { child, output: () => output };
    children.push(entry);
    const waitFor = async (pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const m = output.match(pattern);
        if (m) return m;
        if (child.exitCode !== null) break;
        await sleep(50);
      }
      assert.fail(`op-gen run did not print ${pattern} within ${timeoutMs} ms:\n${output}`);
    };
    return { child, exited, output: () => output, waitFor };
  };

  /** Creates CronJobs until the API server reaches the local validator (the manager's server is up). */
  const waitUntilServed = async (timeoutMs: number): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      try {
        await cronJobs(transport!, 'v1').create(
          { metadata: { generateName: 'never-', namespace: 'default' }, spec: { schedule: 'never' } },
          { dryRun: 'All' },
        );
        last = 'created';
      } catch (err) {
        last = (err as Error).message;
        if (last.includes('never runs')) return last;
      }
      await sleep(100);
    }
    assert.fail(`the local validator was not called within ${timeoutMs} ms: ${last}`);
  };

  /**
   * A ValidatingWebhookConfiguration of the project's name as a deployed operator leaves it (here
   * pointing at a closed port, failurePolicy Ignore): op-gen run replaces it while it runs and must
   * put it back as it was.
   */
  const deployed = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'validating-webhook-configuration', labels: { deployed: 'yes' } },
    webhooks: [
      {
        name: 'deployed.example.com',
        clientConfig: { url: 'https://127.0.0.1:1/validate' },
        rules: [
          {
            apiGroups: ['batch.example.com'],
            apiVersions: ['v1'],
            operations: ['CREATE'],
            resources: ['cronjobs'],
          },
        ],
        failurePolicy: 'Ignore',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  };
  const configurationsPath = (kind: string, name = '') =>
    `/apis/admissionregistration.k8s.io/v1/${kind}${name ? `/${name}` : ''}`;

  /** The cluster takes writes as without op-gen run: no configuration of ours, conversion None. */
  const assertRestored = async (): Promise<void> => {
    const created = await cronJobs(transport!, 'v1').create({
      metadata: { generateName: 'after-', namespace: 'default' },
      spec: { schedule: 'never' },
    });
    assert.equal(created.spec?.schedule, 'never', 'created as sent: no webhook');
    const crd = (await transport!.request({
      method: 'GET',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`,
    })) as { spec: { conversion?: { strategy?: string } } };
    assert.equal(crd.spec.conversion?.strategy, 'None');
    const mutating = (await transport!.request({
      method: 'GET',
      path: configurationsPath('mutatingwebhookconfigurations'),
    })) as { items: unknown[] };
    assert.deepEqual(mutating.items, [], 'mutating configuration left behind');
    const validating = (await transport!.request({
      method: 'GET',
      path: configurationsPath('validatingwebhookconfigurations'),
    })) as { items: (typeof deployed)[] };
    assert.equal(validating.items.length, 1, 'only the deployed validating configuration');
    const back = validating.items[0]!;
    assert.deepEqual(back.metadata.labels, deployed.metadata.labels);
    assert.equal(back.webhooks.length, 1);
    assert.equal(back.webhooks[0]?.name, 'deployed.example.com');
    assert.deepEqual(back.webhooks[0]?.clientConfig, deployed.webhooks[0]?.clientConfig, 'as deployed');
    assert.equal(existsSync(join(root, '.op-gen/run-state.json')), false, 'the state file is removed');
  };

  it('serves validation, defaulting and conversion; after SIGTERM the cluster is as before', async () => {
    await transport!.request({
      method: 'POST',
      path: configurationsPath('validatingwebhookconfigurations'),
      body: deployed,
    });
    const port = await freePort();
    const r = opGenRun('--webhook-port', String(port));
    const started = await r.waitFor(/started the manager \(pid (\d+)\)/, 120_000);
    managerPids.push(Number(started[1]));
    assert.match(r.output(), new RegExp(`webhooks served at https://127\\.0\\.0\\.1:${port}`));
    assert.ok(existsSync(join(root, '.op-gen/run-state.json')), 'the state file is written');

    const refused = await waitUntilServed(60_000);
    assert.match(refused, /spec\.schedule: Invalid value: "never": never runs/);
    const defaulted = await cronJobs(transport!, 'v1').create({
      metadata: { name: 'defaulted', namespace: 'default' },
      spec: {},
    });
    assert.equal(defaulted.spec?.schedule, '@daily', 'the local defaulter set the schedule');
    const atV2 = await cronJobs(transport!, 'v2').get({ namespace: 'default', name: 'defaulted' });
    assert.deepEqual(atV2.spec, { cron: '@daily' }, 'read at v2 through the local converter');

    r.child.kill('SIGTERM');
    assert.equal(await r.exited, 0, r.output());
    assert.match(r.output(), /op-gen run: CRD cronjobs\.batch\.example\.com conversion set back to None/);
    await assertRestored();
  });

  for (const next of ['op-gen run --cleanup', 'the next op-gen run'] as const) {
    it(`after a kill -9 of op-gen run, ${next} puts the cluster back and stops the orphaned manager`, async () => {
      const port = await freePort();
      const r = opGenRun('--webhook-port', String(port));
      const started = await r.waitFor(/started the manager \(pid (\d+)\)/, 120_000);
      const managerPid = Number(started[1]);
      managerPids.push(managerPid);
      await waitUntilServed(60_000);
      r.child.kill('SIGKILL');
      await r.exited;
      assert.ok(existsSync(join(root, '.op-gen/run-state.json')));
      assert.doesNotThrow(() => process.kill(-managerPid, 0), 'the manager outlives a kill -9 of op-gen run');

      if (next === 'op-gen run --cleanup') {
        // With the manager gone too, the configurations point at nothing: writes are refused.
        process.kill(-managerPid, 'SIGKILL');
        await assert.rejects(
          cronJobs(transport!, 'v1').create({
            metadata: { generateName: 'x-', namespace: 'default' },
            spec: {},
          }),
          /failed calling webhook|connection refused/,
        );
        const c = opGenRun('--cleanup');
        assert.equal(await c.exited, 0, c.output());
        assert.match(c.output(), /that did not stop changed in the cluster/);
        await assertRestored();
      } else {
        // The next op-gen run stops the orphan (which holds the port) before it starts its own manager.
        const again = opGenRun('--webhook-port', String(port));
        await again.waitFor(/that did not stop changed in the cluster/, 30_000);
        await again.waitFor(new RegExp(`stopped its manager \\(process group ${managerPid}\\)`), 10_000);
        const s = await again.waitFor(/started the manager \(pid (\d+)\)/, 120_000);
        managerPids.push(Number(s[1]));
        assert.ok(await groupEndsWithin(managerPid, 10_000), 'the orphaned manager is stopped');
        await waitUntilServed(60_000);
        again.child.kill('SIGINT');
        assert.equal(await again.exited, 0, again.output());
        await assertRestored();
      }
    });
  }

  /**
   * Another address than the default 127.0.0.1, as a cluster elsewhere would call this machine. It
   * stays in the loopback range on purpose: tests send traffic only to this machine's loopback.
   */
  const externalIp = '127.0.0.2';
  it('--webhook-host: the configurations call that address, its certificate is valid for it', async () => {
    const port = await freePort();
    const r = opGenRun('--webhook-host', externalIp, '--webhook-port', String(port));
    const s = await r.waitFor(/started the manager \(pid (\d+)\)/, 120_000);
    managerPids.push(Number(s[1]));
    const installed = (await transport!.request({
      method: 'GET',
      path: configurationsPath('mutatingwebhookconfigurations', 'mutating-webhook-configuration'),
    })) as { webhooks: { clientConfig: { url?: string; service?: unknown } }[] };
    for (const w of installed.webhooks) {
      assert.ok(w.clientConfig.url?.startsWith(`https://${externalIp}:${port}/`), JSON.stringify(w));
      assert.equal(w.clientConfig.service, undefined);
    }
    await waitUntilServed(60_000);
    r.child.kill('SIGTERM');
    assert.equal(await r.exited, 0, r.output());
    await assertRestored();
  });
});
