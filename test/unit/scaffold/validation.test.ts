import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApi, type CreateApiOptions } from '../../../src/scaffold/create-api.ts';
import { initProject, type InitOptions } from '../../../src/scaffold/init.ts';
import { OpGenError } from '../../../src/errors.ts';
import { quietIo, run, snapshot, tempDir } from './helpers.ts';

/** Asserts the promise fails with an OpGenError whose message matches and whose exit code is non-zero. */
async function rejectsWith(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof OpGenError, `expected an OpGenError, got ${String(err)}`);
    assert.match(err.message, message);
    assert.ok(err.exitCode > 0);
    return true;
  });
}

describe('op-gen init: bad input is refused and nothing is written', () => {
  const tmp = tempDir();
  after(tmp.cleanup);
  const base: InitOptions = { dir: '', domain: 'example.com', name: 'good-name', skipInstall: true };
  let n = 0;
  const fresh = (): string => join(tmp.dir, `case-${n++}`);

  const cases: [string, Partial<InitOptions>, RegExp][] = [
    [
      'a project name that is not DNS-1123',
      { name: 'Bad_Name' },
      /invalid project name \(--name\) "Bad_Name"/,
    ],
    ['a project name longer than 63', { name: 'a'.repeat(64) }, /invalid project name/],
    ['a domain that is not DNS-1123', { domain: 'Example.COM' }, /invalid domain \(--domain\)/],
    ['an unknown license', { license: 'gpl' }, /invalid --license "gpl": use one of apache2, none/],
    [
      'an --op-gen-path without a package.json',
      { opGenPath: '/nonexistent/op-gen' },
      /--op-gen-path .*no package.json/,
    ],
    [
      'an --op-gen-path naming a tarball that does not exist',
      { opGenPath: '/nonexistent/op-gen-0.1.0.tgz' },
      /--op-gen-path \/nonexistent\/op-gen-0\.1\.0\.tgz: no such file/,
    ],
    ['a missing domain without a TTY', { domain: undefined }, /missing --domain/],
  ];
  for (const [what, override, message] of cases) {
    it(`refuses ${what}`, async () => {
      const dir = fresh();
      await rejectsWith(initProject({ ...base, ...override, dir }, quietIo()), message);
      assert.equal(existsSync(dir), false, 'the target directory must not be created');
    });
  }

  it('defaults the name to the directory name, and refuses a directory name that is not DNS-1123 without --name', async () => {
    const dir = join(tmp.dir, 'Not_A_Name');
    await rejectsWith(
      initProject({ ...base, name: undefined, dir }, quietIo()),
      /the directory name "Not_A_Name" is not a valid project name: a lowercase RFC 1123 label.*Pass --name <name> \(for example --name not-a-name\)/,
    );
    assert.equal(existsSync(dir), false);
    const good = join(tmp.dir, 'dir-named-op');
    const result = await initProject({ ...base, name: undefined, dir: good }, quietIo());
    assert.equal(result.project.projectName, 'dir-named-op');
  });

  it('refuses a non-empty directory without --force, leaving it untouched; --force writes over it', async () => {
    const dir = fresh();
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    writeFileSync(join(dir, 'package.json'), '{"name":"mine"}\n');
    const before = snapshot(dir);
    await rejectsWith(
      initProject({ ...base, dir }, quietIo()),
      /is not empty \(notes.txt, package.json\).*--force/,
    );
    assert.deepEqual(snapshot(dir), before);
    await initProject({ ...base, dir, force: true }, quietIo());
    assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'mine\n');
    assert.match(readFileSync(join(dir, 'package.json'), 'utf8'), /"name": "good-name"/);
  });

  it('accepts a directory holding only .git', async () => {
    const dir = fresh();
    mkdirSync(join(dir, '.git'), { recursive: true });
    await initProject({ ...base, dir }, quietIo());
    assert.ok(existsSync(join(dir, 'op-gen.yaml')));
  });

  it('asks for a missing value when it can prompt, and validates the answer', async () => {
    const asked: string[] = [];
    const dir = fresh();
    const result = await initProject(
      { ...base, domain: undefined, dir },
      {
        ...quietIo(),
        prompt: async (q) => {
          asked.push(q);
          return 'prompted.io';
        },
      },
    );
    assert.deepEqual(asked, ['API domain (e.g. example.com)']);
    assert.equal(result.project.domain, 'prompted.io');
    const bad = fresh();
    await rejectsWith(
      initProject({ ...base, domain: undefined, dir: bad }, { ...quietIo(), prompt: async () => 'BAD' }),
      /invalid domain/,
    );
    assert.equal(existsSync(bad), false);
  });

  it('--license none writes no header and an UNLICENSED package', async () => {
    const dir = fresh();
    await initProject({ ...base, dir, license: 'none' }, quietIo());
    assert.equal(existsSync(join(dir, 'hack/boilerplate.ts.txt')), false);
    assert.match(readFileSync(join(dir, 'src/main.ts'), 'utf8'), /^import /);
    assert.match(readFileSync(join(dir, 'package.json'), 'utf8'), /"license": "UNLICENSED"/);
  });

  it('--op-gen-path makes op-gen a file: dependency; without it a caret range of this version', async () => {
    const opGenRoot = new URL('../../../', import.meta.url).pathname.replace(/\/$/, '');
    const dir = fresh();
    await initProject({ ...base, dir, opGenPath: opGenRoot }, quietIo());
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.equal(pkg.dependencies['op-gen'], `file:${opGenRoot}`);
    const dir2 = fresh();
    await initProject({ ...base, dir: dir2 }, quietIo());
    const pkg2 = JSON.parse(readFileSync(join(dir2, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.match(pkg2.dependencies['op-gen'] ?? '', /^\^\d+\.\d+\.\d+/);
  });

  it('--op-gen-path accepts a tarball from npm pack: op-gen becomes file:<tarball>', async () => {
    const tarball = join(tmp.dir, 'op-gen-0.1.0.tgz');
    writeFileSync(tarball, '');
    const dir = fresh();
    await initProject({ ...base, dir, opGenPath: tarball }, quietIo());
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.equal(pkg.dependencies['op-gen'], `file:${tarball}`);
  });
});

describe('op-gen create api: bad input is refused and nothing is written', () => {
  const tmp = tempDir();
  after(tmp.cleanup);
  const root = join(tmp.dir, 'proj');
  const base: CreateApiOptions = { dir: root, group: 'cache', version: 'v1alpha1', kind: 'Memcached' };

  before(async () => {
    await initProject({ dir: root, domain: 'example.com', skipInstall: true }, quietIo());
    await createApi(base, quietIo());
  });

  const cases: [string, Partial<CreateApiOptions>, RegExp][] = [
    [
      'a group that is not DNS-1123',
      { group: 'Cache_Stuff', kind: 'Other' },
      /invalid group \(--group\) "Cache_Stuff"/,
    ],
    [
      'a kind that is not PascalCase',
      { kind: 'memcached' },
      /invalid kind \(--kind\) "memcached".*PascalCase/,
    ],
    [
      'a version that is not a Kubernetes version',
      { version: 'version1', kind: 'Other' },
      /invalid version \(--version\) "version1"/,
    ],
    ['an existing kind and version', {}, /Memcached cache.example.com\/v1alpha1 already exists/],
    [
      'a scope other than the other versions of the kind',
      { version: 'v1', namespaced: false },
      /namespaced in its other versions \(v1alpha1\).*Drop --cluster/,
    ],
    [
      'a second controller for a kind',
      { version: 'v1', controller: true },
      /already has a controller.*--no-controller/,
    ],
    ['a missing kind without a TTY', { kind: undefined }, /missing --kind/],
  ];
  for (const [what, override, message] of cases) {
    it(`refuses ${what}`, async () => {
      const before = snapshot(root);
      await rejectsWith(createApi({ ...base, ...override }, quietIo()), message);
      assert.deepEqual(snapshot(root), before);
    });
  }

  it('refuses a directory that is not an op-gen project', async () => {
    const empty = join(tmp.dir, 'empty');
    mkdirSync(empty);
    await rejectsWith(
      createApi({ ...base, dir: empty }, quietIo()),
      /is not an op-gen project \(no op-gen.yaml\).*op-gen init/,
    );
    assert.deepEqual([...snapshot(empty).keys()], []);
  });

  it('refuses to overwrite an existing source file of another group with the same kind', async () => {
    const before = snapshot(root);
    await rejectsWith(
      createApi({ ...base, group: 'other' }, quietIo()),
      /src\/controllers\/memcached.controller.ts.*already exist.*does not overwrite/,
    );
    assert.deepEqual(snapshot(root), before);
  });

  it('refuses when the controller registry lost its marker, naming the file', async () => {
    const index = join(root, 'src/controllers/index.ts');
    const original = readFileSync(index, 'utf8');
    writeFileSync(index, original.replace('// op-gen:scaffold:controllers', ''));
    try {
      const before = snapshot(root);
      await rejectsWith(
        createApi({ ...base, kind: 'Redis' }, quietIo()),
        /src\/controllers\/index.ts: the marker comment `\/\/ op-gen:scaffold:controllers` is missing/,
      );
      assert.deepEqual(snapshot(root), before);
    } finally {
      writeFileSync(index, original);
    }
  });

  it('adds a cluster-scoped kind without controller on request', async () => {
    const result = await createApi(
      { ...base, kind: 'Backup', namespaced: false, controller: false },
      quietIo(),
    );
    assert.deepEqual(result.files, [
      'config/crd/kustomization.yaml',
      'config/samples/cache_v1alpha1_backup.yaml',
      'config/samples/kustomization.yaml',
      'op-gen.yaml',
      'src/api/cache/v1alpha1/backup.ts',
    ]);
    assert.match(readFileSync(join(root, 'src/api/cache/v1alpha1/backup.ts'), 'utf8'), /@scope Cluster/);
  });
});

describe('op-gen init / create api through the CLI', () => {
  const tmp = tempDir();
  after(tmp.cleanup);

  it('exits 2 for a missing required flag and 1 for an invalid value, writing nothing', async () => {
    const missing = await run(tmp.dir, 'init', 'proj', '--skip-install');
    assert.equal(missing.code, 2);
    assert.match(missing.err, /op-gen: missing --domain/);
    const invalid = await run(
      tmp.dir,
      'init',
      'proj',
      '--domain',
      'example.com',
      '--name',
      'Nope',
      '--skip-install',
    );
    assert.equal(invalid.code, 1);
    assert.match(invalid.err, /invalid project name/);
    assert.equal(existsSync(join(tmp.dir, 'proj')), false);
  });

  it("scaffolds with init, then create api takes --version as the API version (not op-gen's)", async () => {
    const init = await run(tmp.dir, 'init', 'proj', '--domain', 'example.com', '--skip-install');
    assert.equal(init.code, 0, init.err);
    const create = await run(
      tmp.dir,
      'create',
      'api',
      '--cwd',
      'proj',
      '--group',
      'cache',
      '--version',
      'v1alpha1',
      '--kind',
      'Memcached',
      '--skip-generate',
    );
    assert.equal(create.code, 0, create.err);
    assert.match(create.out, /Created Memcached cache.example.com\/v1alpha1/);
    assert.ok(existsSync(join(tmp.dir, 'proj/src/api/cache/v1alpha1/memcached.ts')));
  });

  it('rejects --namespaced with --cluster as a usage error', async () => {
    const r = await run(
      tmp.dir,
      '--cwd',
      'proj',
      'create',
      'api',
      '--group',
      'cache',
      '--version',
      'v1',
      '--kind',
      'Memcached',
      '--namespaced',
      '--cluster',
    );
    assert.equal(r.code, 2);
    assert.match(r.err, /--namespaced and --cluster exclude each other/);
  });
});
