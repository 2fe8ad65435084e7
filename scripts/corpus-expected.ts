/**
 * Regenerates test/corpus/<project>/expected/: controller-gen v0.23.0 (bench/compare's build) run on
 * a real project's ORIGINAL Go API packages, descriptions removed (`crd:maxDescLen=0`), with
 * `generateEmbeddedObjectMeta=true` added for projects whose corpus.json entry sets
 * `generateEmbeddedObjectMeta` (bench/compare/corpus-go.ts corpusControllerGenArgs).
 *
 *   node scripts/corpus-expected.ts <project> <checkout>
 *   node scripts/corpus-expected.ts <project> --module-dir <dir>
 *
 * <checkout> is a clone of the project's repository at the commit test/corpus/corpus.json names
 * (`source`); <dir> instead holds the project's go.mod itself: the module `source.module` at that
 * commit as the Go module proxy serves it (`go mod download -json <module>@<commit>`'s Dir, what
 * scripts/check-controller-gen-outputs.ts passes). The API files named there are copied into a throw-away Go module
 * (bench/compare/corpus-go.ts: the project's module path, k8s.io/api and k8s.io/apimachinery at
 * K8S_API, default v0.37.2, the release op-gen's built-in types default to), so the Go files are not
 * kept here (each project's SOURCE says where they are).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkoutModuleDir,
  corpusControllerGenArgs,
  CORPUS_DIR,
  corpusProjects,
  writeCorpusGoModule,
} from '../bench/compare/corpus-go.ts';
import { CONTROLLER_GEN_VERSION, controllerGen } from '../bench/compare/tools.ts';

const args = process.argv.slice(2);
const project = args[0];
const fromModule = args[1] === '--module-dir';
const dir = fromModule ? args[2] : args[1];
if (!project || !dir || args.length !== (fromModule ? 3 : 2)) {
  console.error(
    'usage: node scripts/corpus-expected.ts <project> <checkout>  |  <project> --module-dir <dir holding its go.mod>',
  );
  process.exit(2);
}
const bin = controllerGen();
if (!bin) {
  console.error('corpus-expected: Go is needed (go version failed)');
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), `op-gen-corpus-${project}-`));
try {
  const entry = corpusProjects()[project];
  if (!entry) throw new Error(`${project} is not in test/corpus/corpus.json`);
  const moduleDir = fromModule ? dir : checkoutModuleDir(dir, entry.source);
  const versions = writeCorpusGoModule(project, moduleDir, work);
  const out = join(work, 'out');
  const r = spawnSync(bin, corpusControllerGenArgs(out, entry), { cwd: work, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`controller-gen failed:\n${r.stderr}`);
  const expected = join(CORPUS_DIR, project, 'expected');
  rmSync(expected, { recursive: true, force: true });
  mkdirSync(expected, { recursive: true });
  const files = readdirSync(out).sort();
  for (const f of files) cpSync(join(out, f), join(expected, f));
  console.log(
    `${project}: controller-gen ${CONTROLLER_GEN_VERSION} ${corpusControllerGenArgs('', entry)[0]} with ${versions} -> ` +
      `test/corpus/${project}/expected (${files.join(', ')})`,
  );
} catch (err) {
  console.error(`corpus-expected: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
