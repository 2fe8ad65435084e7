/**
 * Regenerates test/corpus/<project>/expected/: controller-gen v0.23.0 (bench/compare's build) run on
 * a real project's ORIGINAL Go API packages, descriptions removed (`crd:maxDescLen=0`).
 *
 *   node scripts/corpus-expected.ts <project> <module-dir> <package-dir>...
 *
 * <module-dir> is the folder of a checkout of the project that holds its go.mod (its module path is
 * kept, so imports between the project's own API packages resolve); each <package-dir> is a Go API
 * package below it (e.g. api/v1), or one file of one (api/v1/x_types.go: the package's other files
 * are left out), or `<file.go>=<package-dir>`: a file from elsewhere (a shim the corpus keeps)
 * added to that package. Only the packages' non-test .go files are copied into a throw-away
 * module that requires k8s.io/api and k8s.io/apimachinery at K8S_API (default v0.37.2, the release
 * op-gen's built-in types default to) and the project's other direct requirements at the project's
 * versions; `go mod tidy` resolves the rest through the Go module proxy.
 * k8s.io/api is not taken from the project: the corpus compares both generators on one Kubernetes
 * release. The Go files are not kept (CI cannot fetch; test/corpus/<project>/SOURCE says where they
 * are).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { CONTROLLER_GEN_VERSION, controllerGen, ROOT } from '../bench/compare/tools.ts';

const [project, moduleDir, ...packages] = process.argv.slice(2);
if (!project || !moduleDir || packages.length === 0) {
  console.error('usage: node scripts/corpus-expected.ts <project> <module-dir> <package-dir>...');
  process.exit(2);
}
const k8sApi = process.env.K8S_API ?? 'v0.37.2';
const bin = controllerGen();
if (!bin) {
  console.error('corpus-expected: Go is needed (go version failed)');
  process.exit(1);
}

function run(cmd: string, args: readonly string[], cwd: string): string {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod -p=1`.trim() },
  });
  if (r.status !== 0) {
    console.error(`corpus-expected: ${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
    process.exit(1);
  }
  return r.stdout;
}

const goMod = readFileSync(join(moduleDir, 'go.mod'), 'utf8');
const modulePath = /^module\s+(\S+)/m.exec(goMod)?.[1];
/** The project's direct requirements other than k8s.io/api and k8s.io/apimachinery, at its versions. */
const projectRequires = [...goMod.matchAll(/^\s*(?:require\s+)?([\w.-]+\.[\w./-]+)\s+(v\S+)\s*$/gm)]
  .map((m) => `${m[1]} ${m[2]}`)
  .filter((r) => !/^k8s\.io\/(api|apimachinery) /.test(r));
if (!modulePath) {
  console.error(`corpus-expected: ${moduleDir}/go.mod has no module line`);
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), `op-gen-corpus-${project}-`));
try {
  for (const arg of packages) {
    const shim = /^(.+\.go)=(.+)$/.exec(arg);
    if (shim) {
      // <file.go>=<package-dir>: a file of the corpus (a shim) added to a package.
      mkdirSync(join(work, shim[2]!), { recursive: true });
      cpSync(shim[1]!, join(work, shim[2]!, basename(shim[1]!)));
    } else if (arg.endsWith('.go')) {
      // One file of a package (the others are left out).
      mkdirSync(join(work, dirname(arg)), { recursive: true });
      cpSync(join(moduleDir, arg), join(work, arg));
    } else {
      mkdirSync(join(work, arg), { recursive: true });
      for (const f of readdirSync(join(moduleDir, arg))) {
        if (f.endsWith('.go') && !f.endsWith('_test.go')) cpSync(join(moduleDir, arg, f), join(work, arg, f));
      }
    }
  }
  writeFileSync(
    join(work, 'go.mod'),
    `module ${modulePath}\n\ngo 1.26\n\nrequire (\n\tk8s.io/api ${k8sApi}\n\tk8s.io/apimachinery ${k8sApi}\n` +
      projectRequires.map((r) => `\t${r}\n`).join('') +
      ')\n',
  );
  run('go', ['mod', 'tidy'], work);
  const versions = run('go', ['list', '-m', 'all'], work)
    .split('\n')
    .filter((line) => /^k8s\.io\/(api|apimachinery) /.test(line))
    .join(', ');
  const out = join(work, 'out');
  run(bin, ['crd:maxDescLen=0', 'paths=./...', `output:crd:dir=${out}`], work);
  const expected = join(ROOT, 'test/corpus', project, 'expected');
  rmSync(expected, { recursive: true, force: true });
  mkdirSync(expected, { recursive: true });
  for (const f of readdirSync(out).sort()) cpSync(join(out, f), join(expected, f));
  console.log(
    `${project}: controller-gen ${CONTROLLER_GEN_VERSION} with ${versions} -> ` +
      `test/corpus/${project}/expected (${readdirSync(out).sort().join(', ')})`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
