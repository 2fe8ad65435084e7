/**
 * CI's check that the controller-gen outputs committed for issue 37's tests are current: it
 * regenerates them in place from their sources and fails when any differs from the commit.
 *
 *   1. data/k8s-schemas/v<minor>.json and test/golden/crd-k8s/controller-gen/v<minor>.yaml:
 *      `node scripts/generate-k8s-schemas.ts` (controller-gen v0.23.0 over k8s.io/api per release);
 *   2. test/corpus/<project>/expected/: each repository test/corpus/corpus.json names, cloned at its
 *      commit (or taken from OP_GEN_CORPUS_SRC/<repository name> when that folder exists, as
 *      bench:compare takes it), then `node scripts/corpus-expected.ts <project> <checkout>`.
 *
 * Then `git diff` on those paths: a difference means a committed output no longer matches what its
 * command makes (exit 1, naming the files; the files are left changed for review). manifest.json's
 * `go` field records the machine's Go version and is not compared (it is put back).
 *
 *   node scripts/check-controller-gen-outputs.ts     (needs Go, git and the network: the Go module proxy, GitHub)
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { checkoutName, corpusProjects } from '../bench/compare/corpus-go.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const MANIFEST = 'data/k8s-schemas/manifest.json';
const CHECKED = [
  'data/k8s-schemas',
  'test/golden/crd-k8s/controller-gen',
  ':(glob)test/corpus/*/expected/**',
];

function run(cmd: string, args: readonly string[], options: SpawnSyncOptions = {}): void {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (r.status !== 0) {
    console.error(`check-controller-gen-outputs: \`${cmd} ${args.join(' ')}\` failed (exit ${r.status})`);
    process.exit(1);
  }
}

function git(args: readonly string[]): string {
  return spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout;
}

const work = mkdtempSync(join(tmpdir(), 'op-gen-controller-gen-outputs-'));
try {
  run(process.execPath, ['scripts/generate-k8s-schemas.ts']);

  const src = process.env.OP_GEN_CORPUS_SRC;
  const checkouts = new Map<string, string>();
  for (const [project, entry] of Object.entries(corpusProjects())) {
    const { repository, commit } = entry.source;
    const name = checkoutName(entry.source);
    let checkout = src ? join(src, name) : undefined;
    if (!checkout || !existsSync(checkout)) {
      checkout = join(work, commit, name);
      if (!checkouts.has(`${repository}@${commit}`)) {
        mkdirSync(join(work, commit), { recursive: true });
        // Only the commit, without history (GitHub serves a commit by its id).
        run('git', ['init', '--quiet', checkout]);
        run('git', ['-C', checkout, 'fetch', '--quiet', '--depth', '1', repository, commit]);
        run('git', ['-C', checkout, 'checkout', '--quiet', 'FETCH_HEAD']);
        checkouts.set(`${repository}@${commit}`, checkout);
      }
    }
    run(process.execPath, ['scripts/corpus-expected.ts', project, checkout]);
  }

  // The Go version the manifest records is the machine's, not a fact of the outputs.
  const committed = JSON.parse(git(['show', `HEAD:${MANIFEST}`])) as Record<string, unknown>;
  const now = JSON.parse(readFileSync(join(ROOT, MANIFEST), 'utf8')) as Record<string, unknown>;
  if (isDeepStrictEqual({ ...committed, go: undefined }, { ...now, go: undefined }))
    run('git', ['checkout', '--', MANIFEST]);

  const changed = git(['status', '--porcelain', '--untracked-files=all', '--', ...CHECKED]).trim();
  if (changed) {
    console.error(
      `check-controller-gen-outputs: committed controller-gen outputs differ from what their commands make now:\n${changed}\n` +
        'Review the differences (git diff), then commit the regenerated files (docs/generate-crd-builtin-types.md, test/corpus/README.md).',
    );
    process.exitCode = 1;
  } else console.log('check-controller-gen-outputs: every committed controller-gen output is current');
} finally {
  rmSync(work, { recursive: true, force: true });
}
