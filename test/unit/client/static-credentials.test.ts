import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import fc from 'fast-check';
import { dump } from 'js-yaml';
import {
  credentialsFromKubeConfig,
  type Credentials,
  type CredentialSource,
} from '../../../src/client/credentials.ts';
import { defaultCredentialSource, staticCredentials } from '../../../src/client/static-credentials.ts';
import { fuzzRuns, fuzzSeed } from '../../helpers/fuzz-runs.ts';

const root = mkdtempSync(join(tmpdir(), 'op-gen-static-cred-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

/** What client-node makes of the file (loadFromDefault with KUBECONFIG=file): credentials or its error. */
async function clientNode(file: string, context?: string): Promise<Credentials | Error> {
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(file);
    if (context) kc.setCurrentContext(context);
    return await credentialsFromKubeConfig(kc);
  } catch (err) {
    return err as Error;
  }
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('staticCredentials: the default kubeconfig read in this process', () => {
  it('reads a token user of one kubeconfig file as client-node does (YAML, relative CA file, context option)', async () => {
    const dir = join(root, `d${dirs++}`);
    mkdirSync(join(dir, 'certs'), { recursive: true });
    writeFileSync(join(dir, 'certs', 'ca.crt'), 'CA FROM FILE');
    const file = join(dir, 'config');
    writeFileSync(
      file,
      dump({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'a',
            cluster: { server: 'https://a.example:6443/', 'certificate-authority': 'certs/ca.crt' },
          },
          {
            name: 'b',
            cluster: {
              server: 'https://b.example',
              'certificate-authority-data': b64('CA B'),
              'insecure-skip-tls-verify': true,
            },
          },
        ],
        users: [
          { name: 'u', user: { token: 'tok' } },
          {
            name: 'v',
            user: { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY'), as: 'someone' },
          },
        ],
        contexts: [
          { name: 'ca', context: { cluster: 'a', user: 'u' } },
          { name: 'cb', context: { cluster: 'b', user: 'v' } },
        ],
        'current-context': 'ca',
      }),
    );
    const env = { KUBECONFIG: file };
    const mine = await staticCredentials({}, { env });
    assert.deepEqual(mine, {
      server: 'https://a.example:6443',
      tls: { ca: 'CA FROM FILE' },
      headers: { Authorization: 'Bearer tok' },
    });
    assert.deepEqual(mine, await clientNode(file));
    const other = await staticCredentials({ context: 'cb' }, { env });
    assert.deepEqual(other, {
      server: 'https://b.example',
      tls: { ca: 'CA B', cert: 'CERT', key: 'KEY', rejectUnauthorized: false },
      headers: { 'Impersonate-User': 'someone' },
    });
    assert.deepEqual(other, await clientNode(file, 'cb'));
  });

  it('reads the in-cluster ServiceAccount files as client-node loadFromCluster does', async () => {
    const prefix = join(root, `d${dirs++}`);
    const dir = join(prefix, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'token'), 'sa-token');
    writeFileSync(join(dir, 'ca.crt'), 'CLUSTER CA');
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    for (const [host, port] of [
      ['10.0.0.1', '443'],
      ['fd00::1', '6443'],
      ['10.0.0.1', '8080'],
    ] as const) {
      process.env.KUBERNETES_SERVICE_HOST = host;
      process.env.KUBERNETES_SERVICE_PORT = port;
      try {
        const kc = new KubeConfig();
        kc.loadFromCluster(prefix);
        // Plain http in-cluster: client-node refuses it (no skipTLSVerify); left to the child, which says so.
        const expected = await credentialsFromKubeConfig(kc).catch(() => undefined);
        const mine = await staticCredentials(
          {},
          { env: { KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port }, serviceAccountDir: dir },
        );
        assert.deepEqual(mine, expected, `${host}:${port}`);
        if (port !== '8080') assert.equal(mine?.headers.Authorization, 'Bearer sa-token');
      } finally {
        for (const [k, v] of [
          ['KUBERNETES_SERVICE_HOST', saved.host],
          ['KUBERNETES_SERVICE_PORT', saved.port],
        ] as const)
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
      }
    }
    // No token file, or a context asked for in-cluster: client-node's business.
    assert.equal(
      await staticCredentials(
        {},
        {
          env: { KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '443' },
          serviceAccountDir: join(root, 'none'),
        },
      ),
      undefined,
    );
    assert.equal(
      await staticCredentials(
        { context: 'x' },
        { env: { KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '443' }, serviceAccountDir: dir },
      ),
      undefined,
    );
  });

  it('leaves to client-node what needs its code or what it reports: exec, auth-provider, proxy-url, several files, Windows, a bad file', async () => {
    const dir = join(root, `d${dirs++}`);
    mkdirSync(dir, { recursive: true });
    const write = (name: string, user: object, cluster: object = {}): string => {
      const file = join(dir, name);
      writeFileSync(
        file,
        JSON.stringify({
          clusters: [{ name: 'c', cluster: { server: 'https://x', ...cluster } }],
          users: [{ name: 'u', user }],
          contexts: [{ name: 'k', context: { cluster: 'c', user: 'u' } }],
          'current-context': 'k',
        }),
      );
      return file;
    };
    const plain = write('plain', { token: 't' });
    assert.ok(await staticCredentials({}, { env: { KUBECONFIG: plain } }), 'the plain case is read');
    const cases: [string, Record<string, string | undefined>, NodeJS.Platform?][] = [
      [
        'exec',
        {
          KUBECONFIG: write('exec', {
            exec: { command: 'get-token', apiVersion: 'client.authentication.k8s.io/v1' },
          }),
        },
      ],
      ['auth-provider', { KUBECONFIG: write('ap', { 'auth-provider': { name: 'oidc', config: {} } }) }],
      ['proxy-url', { KUBECONFIG: write('proxy', { token: 't' }, { 'proxy-url': 'http://proxy:3128' }) }],
      ['two files', { KUBECONFIG: `${plain}:${plain}` }],
      ['missing file', { KUBECONFIG: join(dir, 'nope') }],
      ['windows', { KUBECONFIG: plain }, 'win32'],
    ];
    for (const [what, env, platform] of cases)
      assert.equal(await staticCredentials({}, { env, ...(platform ? { platform } : {}) }), undefined, what);
    writeFileSync(join(dir, 'bad'), 'clusters: [\n');
    assert.equal(
      await staticCredentials({}, { env: { KUBECONFIG: join(dir, 'bad') } }),
      undefined,
      'unparsable',
    );
    assert.equal(
      await staticCredentials({ context: 'nope' }, { env: { KUBECONFIG: plain } }),
      undefined,
      'unknown context',
    );
  });

  it('matches client-node on generated kubeconfigs, and leaves to it only what it rejects or needs its code for', async () => {
    const dir = join(root, `d${dirs++}`);
    mkdirSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(join(dir, 'sub', 'ca.pem'), 'CA FILE');
    writeFileSync(join(dir, 'sub', 'cert.pem'), 'CERT FILE');
    writeFileSync(join(dir, 'key.pem'), 'KEY FILE');
    writeFileSync(join(dir, 'token'), 'file-token');
    const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
    // Present in about one case in ten: each of these alone sends the case to client-node.
    const rare = <T>(arb: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: arb, weight: 1 });
    const cluster = fc.record(
      {
        server: fc.oneof(
          { arbitrary: fc.constantFrom('https://k.example:6443', 'https://k.example/'), weight: 8 },
          { arbitrary: fc.constantFrom('http://127.0.0.1:8080', ''), weight: 1 },
        ),
        'certificate-authority': maybe(
          fc.constantFrom('sub/ca.pem', join(dir, 'sub', 'ca.pem'), 'sub/ca.pem', 'sub/missing.pem'),
        ),
        'certificate-authority-data': maybe(fc.constantFrom(b64('CA DATA'), '')),
        'insecure-skip-tls-verify': maybe(fc.constantFrom(true, false, 'true')),
        'tls-server-name': maybe(fc.constantFrom('api.internal', '')),
        'proxy-url': rare(fc.constant('http://proxy:3128')),
      },
      { requiredKeys: [] },
    );
    const user = fc.record(
      {
        token: maybe(fc.constantFrom('tok', 'tok', '', 42)),
        'token-file': maybe(fc.constantFrom(join(dir, 'token'), join(dir, 'token'), join(dir, 'no-token'))),
        'client-certificate': maybe(fc.constantFrom('sub/cert.pem', join(dir, 'sub', 'cert.pem'))),
        'client-certificate-data': maybe(fc.constant(b64('CERT DATA'))),
        'client-key': maybe(fc.constant('key.pem')),
        'client-key-data': maybe(fc.constant(b64('KEY DATA'))),
        username: maybe(fc.constantFrom('admin', '')),
        password: maybe(fc.constant('secret')),
        as: maybe(fc.constant('impersonated')),
        exec: rare(fc.constant({ command: 'x', apiVersion: 'client.authentication.k8s.io/v1' })),
        'auth-provider': rare(fc.constant({ name: 'gcp', config: {} })),
      },
      { requiredKeys: [] },
    );
    // Two clusters, two users and two contexts naming them; now and then a nameless cluster, a context
    // naming a cluster that is not there or no user.
    const kubeconfig = fc
      .record({
        c1: cluster,
        c2: cluster,
        u1: user,
        u2: user,
        nameless: rare(fc.constant(true)),
        k2Cluster: fc.oneof(
          { arbitrary: fc.constant('c2'), weight: 9 },
          { arbitrary: fc.constant('c3'), weight: 1 },
        ),
        k2User: fc.oneof(
          { arbitrary: fc.constant('u2'), weight: 9 },
          { arbitrary: fc.constant(undefined), weight: 1 },
        ),
        current: fc.constantFrom('k1', 'k2'),
      })
      .map((g) => ({
        clusters: [
          { name: 'c1', cluster: g.c1 },
          { name: g.nameless ? '' : 'c2', cluster: g.c2 },
        ],
        users: [
          { name: 'u1', user: g.u1 },
          { name: 'u2', user: g.u2 },
        ],
        contexts: [
          { name: 'k1', context: { cluster: 'c1', user: 'u1' } },
          { name: 'k2', context: { cluster: g.k2Cluster, ...(g.k2User ? { user: g.k2User } : {}) } },
        ],
        'current-context': g.current,
      }));
    const runs = fuzzRuns(300, 3000);
    let ran = 0;
    let read = 0;
    let deferred = 0;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        kubeconfig,
        fc.boolean(),
        maybe(fc.constantFrom('k1', 'k2', 'k3')),
        async (config, yaml, context) => {
          ran++;
          const file = join(dir, `config-${n++}`);
          writeFileSync(file, yaml ? dump(config) : JSON.stringify(config));
          const mine = await staticCredentials(context ? { context } : {}, { env: { KUBECONFIG: file } });
          const theirs = await clientNode(file, context);
          if (mine !== undefined) {
            read++;
            assert.deepEqual(mine, theirs);
            return;
          }
          deferred++;
          // Only what client-node rejects, or what needs its code, goes to the child process.
          const ctx: { cluster: string; user?: string } | undefined = config.contexts.find(
            (c) => c.name === (context ?? config['current-context']),
          )?.context;
          const u = config.users.find((x) => x.name === ctx?.user)?.user;
          const c = config.clusters.find((x) => x.name === ctx?.cluster)?.cluster;
          const needsClientNode = Boolean(u?.exec || u?.['auth-provider'] || c?.['proxy-url']) || !u || !c;
          assert.ok(
            theirs instanceof Error || needsClientNode || typeof u.token === 'number',
            `deferred although client-node reads it: ${JSON.stringify(config)}`,
          );
        },
      ),
      { numRuns: runs, ...fuzzSeed() },
    );
    assert.equal(ran, runs);
    assert.ok(read >= runs / 10, `read in process: ${read} of ${runs}`);
    assert.ok(deferred >= runs / 10, `left to client-node: ${deferred} of ${runs}`);
  });
});

describe('defaultCredentialSource', () => {
  it('reads a static kubeconfig in this process, again at each resolve; falls back to the child once it needs client-node', async () => {
    const dir = join(root, `d${dirs++}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'config');
    const config = (user: object) =>
      JSON.stringify({
        clusters: [{ name: 'c', cluster: { server: 'https://x' } }],
        users: [{ name: 'u', user }],
        contexts: [{ name: 'k', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'k',
      });
    writeFileSync(file, config({ token: 'one' }));
    let childCalls = 0;
    const child: CredentialSource = {
      refreshMs: 300_000,
      resolve: () => {
        childCalls++;
        return Promise.resolve({ server: 'https://child', tls: {}, headers: {} });
      },
    };
    const source = await defaultCredentialSource({}, { env: { KUBECONFIG: file } }, child);
    assert.equal(source.refreshMs, 60_000);
    assert.equal((await source.resolve()).headers.Authorization, 'Bearer one');
    writeFileSync(file, config({ token: 'two' }));
    assert.equal(
      (await source.resolve()).headers.Authorization,
      'Bearer two',
      'a rotated token is read again',
    );
    writeFileSync(file, config({ exec: { command: 'x' } }));
    assert.equal((await source.resolve()).server, 'https://child');
    assert.equal(childCalls, 1);
    assert.equal(
      await defaultCredentialSource({}, { env: { KUBECONFIG: file } }, child),
      child,
      'exec from the start: the child',
    );
  });
});
