import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { controlPlaneSkip } from '../../../src/testing/index.ts';
import { run, tempDir } from '../../unit/scaffold/helpers.ts';

/**
 * The scaffolds on kinds that are not Memcached: `init`, `create api` for kinds whose specs share no
 * field (no `size`, no `image`, nested structs, a cluster-scoped kind, the `--example deployment`
 * kind and an untouched default one), the user's spec written into each generated types file and
 * sample, then `create webhook` with all three flags, then the project's own checks as a user runs
 * them: typecheck, lint, unit tests and (with a control plane) the generated integration tests. The
 * project links this checkout (built) and its node_modules instead of an npm install.
 */

const OP_GEN_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The user's specs: nothing in common with the scaffold's example, nested types, literal unions. */
const CRON_JOB_SPEC = `export interface CronJobSpec {
  /**
   * The schedule, in cron format.
   * @minLength 1
   */
  schedule: string;
  /** What to do when a run is due while the last one still runs. */
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  suspend?: boolean;
  /** The job each run starts. */
  jobTemplate: JobTemplate;
}

export interface JobTemplate {
  containers: JobContainer[];
  /** @minimum 0 */
  backoffLimit?: number;
}

export interface JobContainer {
  name: string;
  image: string;
  args?: string[];
}
`;
const CRON_JOB_SAMPLE = `spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    containers:
      - name: hello
        image: busybox:1.37
`;

const POLICY_SPEC = `export interface ClusterPolicySpec {
  mode: 'Enforce' | 'Audit';
  rules: PolicyRule[];
}

export interface PolicyRule {
  name: string;
  match: { namespaces?: string[]; labels?: Record<string, string> };
}
`;
const POLICY_SAMPLE = `spec:
  mode: Audit
  rules:
    - name: everything
      match: {}
`;

/** Replaces `export interface <Kind>Spec { ... }` in the generated types file, and the sample's spec. */
function writeSpec(
  root: string,
  group: string,
  version: string,
  kind: string,
  spec: string,
  sample: string,
): void {
  const kindFile = kind.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  const types = join(root, 'src/api', group, version, `${kindFile}.ts`);
  const text = readFileSync(types, 'utf8');
  const start = text.indexOf(`export interface ${kind}Spec {`);
  const end = text.indexOf('\n}\n', start);
  assert.ok(start >= 0 && end > start, `${types}: no ${kind}Spec interface`);
  writeFileSync(types, text.slice(0, start) + spec + text.slice(end + 3));
  const sampleFile = join(root, 'config/samples', `${group}_${version}_${kind.toLowerCase()}.yaml`);
  const yaml = readFileSync(sampleFile, 'utf8');
  writeFileSync(sampleFile, yaml.slice(0, yaml.indexOf('spec:')) + sample);
}

/** node_modules of the project: every package of op-gen's, and op-gen itself (this checkout). */
function linkNodeModules(project: string): void {
  const target = join(project, 'node_modules');
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(join(OP_GEN_ROOT, 'node_modules'))) {
    symlinkSync(join(OP_GEN_ROOT, 'node_modules', entry), join(target, entry));
  }
  symlinkSync(OP_GEN_ROOT, join(target, 'op-gen'));
}

/** Runs one of the project's npm scripts; resolves with its exit code and output. */
function npmRun(cwd: string, script: string): Promise<{ code: number; output: string }> {
  // A nested `node --test` skips its files when it sees the outer run's marker.
  const { NODE_TEST_CONTEXT: _nested, ...env } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', script], {
      cwd,
      env: { ...env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

async function op(cwd: string, ...args: string[]): Promise<string> {
  const r = await run(cwd, ...args);
  assert.equal(r.code, 0, `op-gen ${args.join(' ')}:\n${r.out}${r.err}`);
  return r.out;
}

describe(
  'scaffolds for any kind: create api + create webhook, then the project checks pass',
  { timeout: 900_000 },
  () => {
    const tmp = tempDir('op-gen-any-kind-');
    const root = join(tmp.dir, 'jobs-operator');
    after(tmp.cleanup);

    before(async () => {
      assert.ok(
        existsSync(join(OP_GEN_ROOT, 'dist/cli/main.js')),
        'op-gen is not built: run `npm run build` first',
      );
      await op(tmp.dir, 'init', root, '--domain', 'example.com', '--skip-install', '--owner', 'Example');
      const api = (...args: string[]): Promise<string> => op(root, 'create', 'api', ...args);
      await api('--group', 'batch', '--version', 'v1', '--kind', 'CronJob');
      await api('--group', 'batch', '--version', 'v2', '--kind', 'CronJob');
      await api('--group', 'infra', '--version', 'v1beta1', '--kind', 'ClusterPolicy', '--cluster');
      await api('--group', 'infra', '--version', 'v1', '--kind', 'ClusterPolicy');
      await api(
        '--group',
        'cache',
        '--version',
        'v1alpha1',
        '--kind',
        'Memcached',
        '--example',
        'deployment',
      );
      await api('--group', 'apps', '--version', 'v1', '--kind', 'Widget');
      await api(
        '--group',
        'web',
        '--version',
        'v1',
        '--kind',
        'Site',
        '--dependents',
        'deployment,service,configmap',
      );
      await api('--group', 'web', '--version', 'v1', '--kind', 'Setting', '--dependents', 'configmap');

      // The user's specs, written before the webhooks are scaffolded.
      writeSpec(root, 'batch', 'v1', 'CronJob', CRON_JOB_SPEC, CRON_JOB_SAMPLE);
      writeSpec(root, 'batch', 'v2', 'CronJob', CRON_JOB_SPEC, CRON_JOB_SAMPLE);
      writeSpec(root, 'infra', 'v1beta1', 'ClusterPolicy', POLICY_SPEC, POLICY_SAMPLE);
      writeSpec(root, 'infra', 'v1', 'ClusterPolicy', POLICY_SPEC, POLICY_SAMPLE);
      for (const generator of ['crd', 'rbac', 'client']) await op(root, 'generate', generator);

      const webhook = (kind: string, group: string, version: string, ...flags: string[]): Promise<string> =>
        op(root, 'create', 'webhook', '--group', group, '--version', version, '--kind', kind, ...flags);
      await webhook('CronJob', 'batch', 'v1', '--defaulting', '--programmatic-validation');
      await webhook('CronJob', 'batch', 'v1', '--conversion', '--spoke', 'v2');
      await webhook('ClusterPolicy', 'infra', 'v1beta1', '--defaulting', '--programmatic-validation');
      await webhook('ClusterPolicy', 'infra', 'v1beta1', '--conversion', '--spoke', 'v1');
      await webhook('Memcached', 'cache', 'v1alpha1', '--defaulting', '--programmatic-validation');
      await webhook('Widget', 'apps', 'v1', '--programmatic-validation');
      linkNodeModules(root);
    });

    it('create webhook writes an integration test beside each unit test', () => {
      for (const file of [
        'batch/v1/cron-job.webhook.test.ts',
        'batch/v1/cron-job.conversion.test.ts',
        'infra/v1beta1/cluster-policy.webhook.test.ts',
        'infra/v1beta1/cluster-policy.conversion.test.ts',
        'cache/v1alpha1/memcached.webhook.test.ts',
        'apps/v1/widget.webhook.test.ts',
      ]) {
        assert.ok(existsSync(join(root, 'test/unit/webhooks', file)), `test/unit/webhooks/${file}`);
        const test = readFileSync(join(root, 'test/integration/webhooks', file), 'utf8');
        assert.match(test, /installWebhooks/, file);
      }
    });

    it('the scaffolded controllers do not assume a Deployment unless asked', () => {
      const cron = readFileSync(join(root, 'src/controllers/cron-job.controller.ts'), 'utf8');
      assert.doesNotMatch(cron, /builtinKinds\.Deployment|V1Deployment|spec\.size|spec\.image/);
      assert.match(cron, /ensureFinalizer/);
      assert.match(cron, /setCondition/);
      const memcached = readFileSync(join(root, 'src/controllers/memcached.controller.ts'), 'utf8');
      assert.match(memcached, /desiredDeployment/, '--example deployment');
      const site = readFileSync(join(root, 'src/controllers/site.controller.ts'), 'utf8');
      assert.match(site, /\.dependents\(\[config, deployment, service\]\)/, '--dependents');
      assert.doesNotMatch(site, /^ \* @rbac/m);
      const setting = readFileSync(join(root, 'src/controllers/setting.controller.ts'), 'utf8');
      assert.match(setting, /\.dependents\(\[config\]\)/);
      assert.doesNotMatch(setting, /Deployment|Service/);
      // generate rbac (run by create api) infers the dependents' verbs from the scaffolded chain
      const role = parse(readFileSync(join(root, 'config/rbac/role.yaml'), 'utf8')) as {
        rules: { resources?: string[]; verbs: string[] }[];
      };
      const verbsOf = (resource: string) =>
        role.rules.filter((r) => r.resources?.includes(resource)).flatMap((r) => r.verbs);
      for (const resource of ['configmaps', 'services'])
        assert.deepEqual(
          ['create', 'delete', 'get', 'list', 'patch', 'watch'].filter((v) => !verbsOf(resource).includes(v)),
          [],
          resource,
        );
    });

    for (const script of ['typecheck', 'lint', 'test']) {
      it(`npm run ${script} passes`, async () => {
        const r = await npmRun(root, script);
        assert.equal(r.code, 0, `npm run ${script} in the scaffolded project:\n${r.output}`);
      });
    }

    it(
      'npm run test:integration passes (the controllers and the webhooks on a real control plane)',
      { skip: controlPlaneSkip() },
      async () => {
        const r = await npmRun(root, 'test:integration');
        assert.equal(r.code, 0, `npm run test:integration in the scaffolded project:\n${r.output}`);
        // The generated webhook tests ran too (each against its own control plane), not skipped.
        for (const suite of [
          'CronJob webhooks against a real API server',
          'CronJob conversion webhook against a real API server',
          'ClusterPolicy webhooks against a real API server',
          'ClusterPolicy conversion webhook against a real API server',
          'Memcached webhooks against a real API server',
          'Widget webhooks against a real API server',
        ])
          assert.match(r.output, new RegExp(`✔ ${suite} \\(`), `${suite}:\n${r.output}`);
      },
    );
  },
);
