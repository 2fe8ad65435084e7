/**
 * CI's check that the controller-gen outputs committed for issue 37's tests are current: it
 * regenerates them in place from their sources and fails when any differs from the commit.
 *
 *   1. data/k8s-schemas/v<minor>.json and test/golden/crd-k8s/controller-gen/v<minor>.yaml:
 *      `node scripts/generate-k8s-schemas.ts` (controller-gen v0.23.0 over k8s.io/api per release);
 *   2. test/corpus/<project>/expected/: each project's Go API as test/corpus/corpus.json names it,
 *      then `node scripts/corpus-expected.ts`. The sources come from OP_GEN_CORPUS_SRC/<repository
 *      name> when that folder exists (a checkout at the commit, as bench:compare takes it), else from
 *      the Go module proxy: `go mod download -json <source.module>@<source.commit>` into the machine's
 *      module cache (GOMODCACHE, outside the repository). CI reaches the registries only, never
 *      GitHub. A project whose module the proxy does not serve at that commit cannot be checked
 *      there: one line says so (its expected/ is verified only locally, with OP_GEN_CORPUS_SRC) and
 *      the check goes on; it does not fail for it.
 *
 * Then `git status` on those paths: a difference means a committed output no longer matches what its
 * command makes (exit 1, naming the files; the files are left changed for review). manifest.json's
 * `go` field records the machine's Go version and is not compared (it is put back).
 *
 *   node scripts/check-controller-gen-outputs.ts     (needs Go, git and the Go module proxy)
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { checkoutName, corpusProjects, type CorpusSource } from '../bench/compare/corpus-go.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const NAME = 'check-controller-gen-outputs';
const MANIFEST = 'data/k8s-schemas/manifest.json';
const CHECKED = [
  'data/k8s-schemas',
  'test/golden/crd-k8s/controller-gen',
  ':(glob)test/corpus/*/expected/**',
];
const started = performance.now();
const elapsed = (): string => `${Math.round((performance.now() - started) / 1000)} s`;

function fail(message: string): never {
  console.error(`${NAME}: ${message}`);
  process.exit(1);
}

function run(cmd: string, args: readonly string[], options: SpawnSyncOptions = {}): void {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (r.status !== 0) fail(`\`${cmd} ${args.join(' ')}\` failed (exit ${r.status})`);
}

function git(args: readonly string[]): string {
  return spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout;
}

/**
 * The proxy's answers that mean "not served": an HTTP 4xx for the module's URL (403 "This module
 * version is not available", 404/410, 400 for a path that is no module), or a revision the origin
 * lacks; as opposed to an unreachable proxy or a broken Go, which fail the check.
 */
const NOT_SERVED = /\breading \S+: 4\d\d |not available|not found|unknown revision/i;

type Fetched = { readonly dir: string } | { readonly notServed: string };

/** A corpus project's module at its commit from the Go module proxy (`go mod download`). */
function fromProxy(source: CorpusSource, cwd: string): Fetched {
  const query = `${source.module}@${source.commit}`;
  const r = spawnSync('go', ['mod', 'download', '-json', query], {
    cwd, // a temporary folder: no go.mod of the repository is read or written
    encoding: 'utf8',
    env: { ...process.env, GOTOOLCHAIN: 'local' },
  });
  let answer: { Dir?: string; Error?: string } = {};
  try {
    answer = JSON.parse(r.stdout) as typeof answer;
  } catch {
    fail(
      `\`go mod download -json ${query}\` failed: ${(r.error?.message ?? r.stderr).trim().split('\n')[0]}`,
    );
  }
  if (r.status === 0 && answer.Dir) return { dir: answer.Dir };
  const error = (answer.Error ?? r.stderr).trim();
  if (NOT_SERVED.test(error)) {
    const reason = /server response: (.*)/.exec(error)?.[1] ?? error.split('\n')[0]!.replace(/^.*: /, '');
    return { notServed: reason.trim() };
  }
  fail(`\`go mod download -json ${query}\` failed: ${error.split('\n')[0]}`);
}

const gomodcache = spawnSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout?.trim();
if (!gomodcache) fail('Go is needed (`go env GOMODCACHE` failed)');
if (!relative(ROOT, gomodcache).startsWith('..'))
  fail(`GOMODCACHE (${gomodcache}) is inside the repository; point it elsewhere`);

const work = mkdtempSync(join(tmpdir(), 'op-gen-controller-gen-outputs-'));
try {
  run(process.execPath, ['scripts/generate-k8s-schemas.ts']);
  console.log(`${NAME}: data/k8s-schemas and test/golden/crd-k8s/controller-gen made (${elapsed()})`);

  const src = process.env.OP_GEN_CORPUS_SRC;
  const fetched = new Map<string, Fetched>();
  const checked: string[] = [];
  const localOnly: string[] = [];
  for (const [project, entry] of Object.entries(corpusProjects())) {
    const { source } = entry;
    const checkout = src ? join(src, checkoutName(source)) : undefined;
    if (checkout && existsSync(checkout)) {
      run(process.execPath, ['scripts/corpus-expected.ts', project, checkout]);
      checked.push(`${project} (checkout ${checkout})`);
      continue;
    }
    const query = `${source.module}@${source.commit}`;
    const got = fetched.get(query) ?? fromProxy(source, work);
    fetched.set(query, got);
    if ('dir' in got) {
      run(process.execPath, ['scripts/corpus-expected.ts', project, '--module-dir', got.dir]);
      checked.push(`${project} (Go module proxy)`);
    } else {
      console.log(
        `${NAME}: ${project}: NOT CHECKED here: the Go module proxy does not serve ${query} (${got.notServed}); ` +
          `test/corpus/${project}/expected is verified only locally, with a checkout under OP_GEN_CORPUS_SRC (test/corpus/README.md)`,
      );
      localOnly.push(project);
    }
  }

  // The Go version the manifest records is the machine's, not a fact of the outputs.
  const committed = JSON.parse(git(['show', `HEAD:${MANIFEST}`])) as Record<string, unknown>;
  const now = JSON.parse(readFileSync(join(ROOT, MANIFEST), 'utf8')) as Record<string, unknown>;
  if (isDeepStrictEqual({ ...committed, go: undefined }, { ...now, go: undefined }))
    run('git', ['checkout', '--', MANIFEST]);

  console.log(`${NAME}: corpus projects checked: ${checked.join(', ') || 'none'}`);
  if (localOnly.length)
    console.log(
      `${NAME}: corpus projects verified only locally (not on the Go module proxy): ${localOnly.join(', ')}`,
    );
  // trimEnd: porcelain's first column (' M') is part of the answer.
  const changed = git(['status', '--porcelain', '--untracked-files=all', '--', ...CHECKED]).trimEnd();
  if (changed) {
    console.error(
      `${NAME}: committed controller-gen outputs differ from what their commands make now:\n${changed}\n` +
        'Review the differences (git diff), then commit the regenerated files (docs/generate-crd-builtin-types.md, test/corpus/README.md).',
    );
    process.exitCode = 1;
  } else console.log(`${NAME}: every controller-gen output checked is current (${elapsed()})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
