import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';
import { controlPlaneSkip, startControlPlane, type ControlPlane } from '../../../src/testing/index.ts';
import { freePort } from '../../../src/testing/free-port.ts';

/**
 * The scaffold end to end, as a user runs it: `op-gen init` (with npm install from the local cache),
 * `op-gen create api`, build, generate, the generated project's own tests (unit, and integration
 * against a real control plane), then the generated manager as a process, with the generated RBAC,
 * until the sample reports Ready. Each step fails loudly, naming the step and the output; a step whose
 * prerequisite failed fails too ("not run: needs ...") instead of being skipped.
 */

const OP_GEN_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OP_GEN_BIN = join(OP_GEN_ROOT, 'bin/op-gen.js');

interface Ran {
  readonly code: number;
  readonly output: string;
}

function runCommand(
  cmd: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<Ran> {
  // node:test marks its child processes; a nested `node --test` (the project's own tests) would skip its files.
  // Under the README's `npx -y -p node@24 -c '...'`, npm exports the outer call as npm_config_call and a
  // nested `npx op-gen ...` would fail with EUSAGE (a call and a command): it is not passed on.
  const { NODE_TEST_CONTEXT: _nested, npm_config_call: _outerCall, ...parentEnv } = process.env;
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: {
        ...parentEnv,
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code: code ?? 1, output }));
  });
}

function tail(text: string, lines = 60): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

async function step(
  cmd: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<Ran> {
  const ran = await runCommand(cmd, args, cwd, env);
  assert.equal(
    ran.code,
    0,
    `\`${cmd} ${args.join(' ')}\` exited ${ran.code} in ${cwd}:\n${tail(ran.output)}`,
  );
  return ran;
}

function httpStatus(url: string): Promise<number> {
  return new Promise((resolveStatus, reject) => {
    const req = request(url, { timeout: 1_000 }, (res) => {
      res.resume();
      resolveStatus(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** GET over HTTPS from a server with a self-signed certificate, with an optional bearer token. */
function httpsStatus(url: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolveStatus, reject) => {
    const req = httpsRequest(
      url,
      {
        timeout: 10_000,
        rejectUnauthorized: false,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolveStatus({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  context: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(200);
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last})` : ''}\n${context()}`,
  );
}

function yamlDocs(file: string): KubernetesObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubernetesObject | null)
    .filter((d): d is KubernetesObject => d !== null);
}

/** Node's compile cache under `root` (one folder per Node version, V8 flags and user): each file with its size and time. */
function cacheFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      const st = statSync(path);
      return `${path} ${st.size} ${st.mtimeMs}`;
    })
    .sort();
}

describe('op-gen init + create api, end to end', { timeout: 900_000, skip: controlPlaneSkip() }, () => {
  const work = mkdtempSync(join(tmpdir(), 'op-gen-e2e-'));
  const project = join(work, 'memcached-operator');
  const passed = new Set<string>();

  /** A step runs only if the steps it needs passed; otherwise it fails naming them. */
  const stepIt = (name: string, needs: readonly string[], fn: () => Promise<void>): void => {
    it(name, async () => {
      const missing = needs.filter((n) => !passed.has(n));
      if (missing.length > 0)
        assert.fail(`not run: needs ${missing.map((m) => `"${m}"`).join(', ')}, which did not pass`);
      await fn();
      passed.add(name);
    });
  };
  const INIT = 'op-gen init installs a new project (npm install from the local cache)';
  const CREATE = 'op-gen create api adds Memcached and runs the generators op-gen has';
  const CRD = 'op-gen generate crd writes the CRD';
  const RBAC = 'op-gen generate rbac writes the manager ClusterRole';
  const BUILD = 'npm run build, typecheck and lint pass on the generated code';

  before(() => {
    assert.ok(
      existsSync(join(OP_GEN_ROOT, 'dist/cli/main.js')),
      'op-gen is not built: run `npm run build` first (npm run test:integration does)',
    );
  });

  after(() => {
    if (process.env.OP_GEN_KEEP_E2E) console.log(`# kept ${project}`);
    else rmSync(work, { recursive: true, force: true });
  });

  stepIt(INIT, [], async () => {
    await step(
      process.execPath,
      [OP_GEN_BIN, 'init', project, '--domain', 'example.com', '--op-gen-path', OP_GEN_ROOT],
      work,
    );
    assert.ok(
      existsSync(join(project, 'node_modules/op-gen/package.json')),
      'op-gen is linked into node_modules',
    );
  });

  stepIt(CREATE, [INIT], async () => {
    const ran = await step(
      process.execPath,
      [
        OP_GEN_BIN,
        'create',
        'api',
        '--group',
        'cache',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--example',
        'deployment',
      ],
      project,
    );
    console.log(
      `# create api: ${
        ran.output
          .split('\n')
          .filter((l) => l.startsWith('Running op-gen generate'))
          .join('; ') || 'no generators registered'
      }`,
    );
  });

  stepIt(CRD, [CREATE], async () => {
    await step('npx', ['op-gen', 'generate', 'crd'], project);
    const crd = join(project, 'config/crd/bases/cache.example.com_memcacheds.yaml');
    assert.ok(existsSync(crd), `${crd} was not generated`);
  });

  stepIt(RBAC, [CREATE], async () => {
    await step('npx', ['op-gen', 'generate', 'rbac'], project);
    const role = readFileSync(join(project, 'config/rbac/role.yaml'), 'utf8');
    assert.match(role, /memcacheds/, 'the ClusterRole grants access to memcacheds');
    assert.match(role, /deployments/, 'the ClusterRole grants access to deployments');
  });

  stepIt('npm run generate (crd, rbac and client) passes', [CREATE], async () => {
    await step('npm', ['run', 'generate'], project);
  });

  stepIt(BUILD, [CREATE], async () => {
    // TypeScript 7 builds and typechecks; typescript-eslint gets the TypeScript 6 API as `typescript`.
    const manifest = (name: string): { name: string; version: string } =>
      JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')) as {
        name: string;
        version: string;
      };
    assert.match(manifest('typescript7').version, /^7\./);
    assert.equal(manifest('typescript').name, '@typescript/typescript6');
    await step('npm', ['run', 'build'], project);
    await step('npm', ['run', 'typecheck'], project);
    await step('npm', ['run', 'lint'], project);
    assert.ok(existsSync(join(project, 'dist/main.js')));
    // What the Dockerfile's build stage runs after npm run build: the manager bundled for the image.
    await step('npx', ['op-gen', 'build'], project);
    assert.ok(existsSync(join(project, 'dist/manager/main.mjs')));
    assert.ok(existsSync(join(project, 'dist/manager/resolve-credentials.mjs')));
  });

  stepIt("the generated project's unit tests pass", [CREATE], async () => {
    const ran = await step('npm', ['test'], project);
    assert.match(ran.output, /# fail 0|ℹ fail 0/);
    assert.doesNotMatch(ran.output, /ℹ pass 0\b/);
  });

  stepIt("the generated project's integration tests pass against a real control plane", [CRD], async () => {
    const ran = await step('npm', ['run', 'test:integration'], project, { CI: 'true' });
    assert.match(ran.output, /ℹ fail 0/);
    assert.match(ran.output, /ℹ skipped 0/);
    // A skipped describe is not in node's counts (`skipped 0` still); the spec reporter marks it ﹣.
    assert.doesNotMatch(ran.output, /^\s*﹣ /m, 'no suite or test was skipped');
    assert.doesNotMatch(ran.output, /ℹ pass 0\b/);
  });

  describe('the generated manager, run as a process with the generated RBAC', () => {
    let cp: ControlPlane | undefined;
    let manager: ChildProcess | undefined;
    let managerLog = '';

    after(async () => {
      if (manager && manager.exitCode === null) manager.kill('SIGKILL');
      await cp?.stop();
    });

    stepIt(
      'reconciles the sample until it reports Ready, then stops on SIGTERM',
      [CRD, RBAC, BUILD],
      async () => {
        cp = await startControlPlane();
        const objects = KubernetesObjectApi.makeApiClient(cp.kubeConfig);
        const namespace = 'memcached-operator-system';
        await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });

        for (const crd of yamlDocs(join(project, 'config/crd/bases/cache.example.com_memcacheds.yaml'))) {
          await objects.create(crd);
        }
        // The generated ClusterRole, bound to the manager's ServiceAccount; the leader election Role in its namespace.
        const roles = yamlDocs(join(project, 'config/rbac/role.yaml')).filter(
          (r) => r.kind === 'ClusterRole',
        );
        assert.ok(roles.length > 0, 'config/rbac/role.yaml holds no ClusterRole');
        const saKubeConfig = await cp.kubeConfigForServiceAccount(namespace, 'controller-manager');
        /** Creates a ClusterRole and binds it to a ServiceAccount of the test namespace. */
        const bindClusterRole = async (role: KubernetesObject, account: string): Promise<void> => {
          await objects.create(role);
          await objects.create({
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRoleBinding',
            metadata: { name: `${role.metadata?.name}-binding` },
            roleRef: {
              apiGroup: 'rbac.authorization.k8s.io',
              kind: 'ClusterRole',
              name: role.metadata?.name,
            },
            subjects: [{ kind: 'ServiceAccount', name: account, namespace }],
          } as KubernetesObject);
        };
        for (const role of roles) await bindClusterRole(role, 'controller-manager');
        const election = yamlDocs(join(project, 'config/rbac/leader_election_role.yaml'))[0];
        assert.ok(election, 'config/rbac/leader_election_role.yaml is empty');
        await objects.create({ ...election, metadata: { ...election.metadata, namespace } });
        await objects.create({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'leader-election-rolebinding', namespace },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: election.metadata?.name },
          subjects: [{ kind: 'ServiceAccount', name: 'controller-manager', namespace }],
        } as KubernetesObject);

        // Secure metrics (the scaffold's default): the generated metrics auth role for the manager, and
        // the generated metrics-reader role for a scraper's ServiceAccount.
        const [authRole] = yamlDocs(join(project, 'config/rbac/metrics_auth_role.yaml'));
        const [readerRole] = yamlDocs(join(project, 'config/rbac/metrics_reader_role.yaml'));
        assert.ok(authRole && readerRole, 'config/rbac has the metrics auth and reader roles');
        const scraper = await cp.kubeConfigForServiceAccount(namespace, 'prometheus');
        await bindClusterRole(authRole, 'controller-manager');
        await bindClusterRole(readerRole, 'prometheus');

        const kubeconfig = join(work, 'manager.kubeconfig');
        writeFileSync(kubeconfig, saKubeConfig.exportConfig(), { mode: 0o600 });
        const [metricsPort, probePort] = [await freePort(), await freePort()];
        // As the image runs it: the Dockerfile's ENTRYPOINT (its Node flags, main.mjs) in a folder
        // holding dist/manager/ alone, no node_modules and no package.json anywhere above it.
        const image = join(work, 'image');
        cpSync(join(project, 'dist/manager'), image, { recursive: true });
        const entrypoint = JSON.parse(
          `[${/ENTRYPOINT \[(.*)\]/.exec(readFileSync(join(project, 'Dockerfile'), 'utf8'))?.[1] ?? ''}]`,
        ) as string[];
        assert.equal(entrypoint[0], 'node');
        assert.equal(entrypoint.at(-1), 'main.mjs');
        // The run stage's compile cache: its ENV names the folder, its RUN line fills it with the
        // ENTRYPOINT's flags; the manager's start then reads every module from it (checked at the end).
        const dockerfile = readFileSync(join(project, 'Dockerfile'), 'utf8');
        assert.match(dockerfile, /^ENV NODE_COMPILE_CACHE=\S+$/m);
        const warmArgs = JSON.parse(
          `[${/^RUN \[(.*"warm-compile-cache\.mjs")\]$/m.exec(dockerfile)?.[1] ?? ''}]`,
        ) as string[];
        assert.deepEqual(warmArgs.slice(0, -1), entrypoint.slice(0, -1));
        const compileCache = join(work, 'node-compile-cache');
        const warm = spawnSync(process.execPath, warmArgs.slice(1), {
          cwd: image,
          encoding: 'utf8',
          env: { ...process.env, NODE_COMPILE_CACHE: compileCache },
        });
        assert.equal(warm.status, 0, warm.stderr);
        const warmed = cacheFiles(compileCache);
        assert.ok(warmed.length > 0);
        manager = spawn(
          process.execPath,
          [
            ...entrypoint.slice(1),
            '--leader-elect',
            `--metrics-bind-address=127.0.0.1:${metricsPort}`,
            `--health-probe-bind-address=127.0.0.1:${probePort}`,
          ],
          {
            cwd: image,
            env: {
              ...process.env,
              KUBECONFIG: kubeconfig,
              POD_NAMESPACE: namespace,
              NODE_COMPILE_CACHE: compileCache,
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        manager.stdout?.on('data', (d: Buffer) => (managerLog += d.toString()));
        manager.stderr?.on('data', (d: Buffer) => (managerLog += d.toString()));
        const context = (): string =>
          `manager exit: ${manager?.exitCode ?? 'running'}; manager log:\n${tail(managerLog)}`;

        await eventually(
          '/readyz of the manager',
          async () => ((await httpStatus(`http://127.0.0.1:${probePort}/readyz`)) === 200 ? true : undefined),
          30_000,
          context,
        );

        const sample = parse(
          readFileSync(join(project, 'config/samples/cache_v1alpha1_memcached.yaml'), 'utf8'),
        ) as KubernetesObject;
        await objects.create({ ...sample, metadata: { ...sample.metadata, namespace: 'default' } });
        const ready = await eventually(
          'the sample Memcached to report Ready',
          async () => {
            const got = (await objects.read({
              apiVersion: 'cache.example.com/v1alpha1',
              kind: 'Memcached',
              metadata: { name: sample.metadata?.name ?? '', namespace: 'default' },
            })) as KubernetesObject & {
              status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
            };
            const condition = got.status?.conditions?.find((c) => c.type === 'Ready');
            return condition?.status === 'True' ? { got, condition } : undefined;
          },
          60_000,
          context,
        );
        assert.equal(ready.condition.observedGeneration, ready.got.metadata?.generation);
        const deployment = await objects.read({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: sample.metadata?.name ?? '', namespace: 'default' },
        });
        assert.equal(deployment.metadata?.ownerReferences?.[0]?.uid, ready.got.metadata?.uid);
        const metricsUrl = `https://127.0.0.1:${metricsPort}/metrics`;
        assert.equal((await httpsStatus(metricsUrl)).status, 401, 'metrics need a token');
        const scraped = await eventually(
          'metrics for the metrics-reader ServiceAccount',
          async () => {
            const res = await httpsStatus(metricsUrl, scraper.getCurrentUser()?.token);
            return res.status === 200 ? res : undefined;
          },
          45_000,
          context,
        );
        assert.match(scraped.body, /controller_runtime_reconcile_total\{controller="memcached"/);

        const exited = new Promise<number | null>((resolveExit) =>
          manager?.once('exit', (code) => resolveExit(code)),
        );
        manager.kill('SIGTERM');
        const code = await Promise.race([exited, sleep(15_000).then(() => 'timeout' as const)]);
        assert.notEqual(code, 'timeout', `the manager did not stop within 15 s of SIGTERM\n${context()}`);
        assert.equal(code, 0, `the manager exited ${code} on SIGTERM\n${context()}`);
        // Node writes a module compiled without the cache to it at exit: nothing new means every
        // module of the run (the self-signed certificate's chunk for the metrics server too) was read.
        assert.deepEqual(cacheFiles(compileCache), warmed);
      },
    );
  });
});
