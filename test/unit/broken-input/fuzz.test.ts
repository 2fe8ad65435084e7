import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { parse, parseAllDocuments } from 'yaml';
import { allMutants, CompilerOracle, GO_MARKERS, mutate, mutationChoice, type Mutant } from './mutants.ts';
import { copyProject, run, scaffoldTemplate, snapshot } from './project.ts';
import { assertFloor, assertProperty, fuzzRuns, runCount } from '../../helpers/fuzz-runs.ts';
import { webhookProject } from '../scaffold/webhook-project.ts';

/**
 * Property: for a mutant of a project's API sources, whenever the TypeScript compiler (real lib,
 * op-gen's real modules) reports a syntax error or an unresolved name or module in an API file, every
 * generator exits 1 and writes nothing; a Go-form marker is an error at its line; otherwise each
 * either fails with a file:line message (writing nothing) or succeeds (crd with a CRD). Never an
 * internal error. Three targets: the scaffolded Memcached API (generate crd, client, rbac), the rich
 * fixture APIs of generate crd's tests (shared types, two versions, unions, CEL rules), and the
 * scaffold's controller and main module (generate rbac, which promises their syntax errors).
 *
 * `npm test` draws a few mutants of each at random; a failure prints the seed and the shrunk mutant
 * (OP_GEN_FUZZ_SEED replays it). `npm run test:fuzz` (OP_GEN_FUZZ_RUNS=all) runs every distinct
 * mutant of the scaffold's API (random draws from a few thousand would repeat long before they
 * covered them) and OP_GEN_FUZZ_RICH_RUNS (default 1,000) random ones of the rich APIs and of the
 * controller, whose spaces are too large to run whole, and reports every failure at the end.
 */
const ALL = process.env.OP_GEN_FUZZ_RUNS === 'all';
/** `all`: every distinct mutant (the exhaustive count), else a number of random ones. */
const RUNS = ALL ? Infinity : fuzzRuns(30);
const RICH_RUNS =
  process.env.OP_GEN_FUZZ_RICH_RUNS === undefined
    ? fuzzRuns(15, 1000)
    : runCount('OP_GEN_FUZZ_RICH_RUNS', process.env.OP_GEN_FUZZ_RICH_RUNS);

/**
 * What a command that exited 0 must have written: its artifact, well formed. Every file it changed
 * parses (YAML documents each with an apiVersion and a kind; TypeScript without a syntax error), and
 * its own output is there: CRDs, clients, a ClusterRole with rules, a CSV, an API reference.
 */
function checkArtifacts(
  argv: readonly string[],
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  crdDir: string,
  oracle: CompilerOracle,
  context: string,
): void {
  const changed = [...after].filter(([path, text]) => before.get(path) !== text);
  for (const [path, text] of changed) {
    if (/\.ya?ml$/.test(path)) {
      const docs = parseAllDocuments(text);
      for (const doc of docs) {
        assert.deepEqual(doc.errors, [], `${path} is not YAML\n${context}`);
        const value = doc.toJS() as { apiVersion?: unknown; kind?: unknown } | null;
        if (value === null) continue;
        assert.ok(
          typeof value.apiVersion === 'string' && typeof value.kind === 'string',
          `${path}: a document without apiVersion and kind\n${context}`,
        );
      }
    } else if (path.endsWith('.ts')) {
      assert.deepEqual(oracle.syntaxErrors(new Map([[path, text]])), [], `${path}\n${context}`);
    }
  }
  const kinds = (prefix: string): string[] =>
    [...after]
      .filter(([path]) => path.startsWith(prefix) && /\.ya?ml$/.test(path))
      .flatMap(([, text]) =>
        parseAllDocuments(text).map((d) => String((d.toJS() as { kind?: unknown })?.kind)),
      );
  const command = argv.slice(0, 2).join(' ');
  if (command === 'generate crd')
    assert.ok(kinds(`${crdDir}/`).includes('CustomResourceDefinition'), `no CRD in ${crdDir}\n${context}`);
  else if (command === 'generate client') {
    const out = argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : 'src/clients';
    assert.ok(
      [...after.keys()].some((p) => p.startsWith(`${out}/`) && p.endsWith('.ts')),
      `no client in ${out}\n${context}`,
    );
  } else if (command === 'generate rbac') {
    const role = parse(after.get('config/rbac/role.yaml') ?? 'null') as {
      kind?: string;
      rules?: unknown;
    } | null;
    assert.equal(role?.kind, 'ClusterRole', `config/rbac/role.yaml\n${context}`);
    assert.ok(Array.isArray(role?.rules) && role.rules.length > 0, `a ClusterRole without rules\n${context}`);
  } else if (argv[0] === 'bundle')
    assert.ok(kinds('bundle/').includes('ClusterServiceVersion'), `no CSV in bundle/\n${context}`);
  else if (command === 'generate webhook') {
    assert.ok(after.has('config/webhook/service.yaml'), `no config/webhook/service.yaml\n${context}`);
    for (const kind of kinds('config/webhook/manifests.yaml'))
      assert.match(
        kind,
        /^(Mutating|Validating)WebhookConfiguration$/,
        `config/webhook/manifests.yaml\n${context}`,
      );
  } else if (command === 'generate docs')
    assert.ok(
      [...after].some(([path, text]) => path.startsWith('docs/') && path.endsWith('.md') && text.length > 0),
      `no API reference in docs/\n${context}`,
    );
  else assert.fail(`no artifact check for ${argv.join(' ')}: add one`);
}

interface FuzzProject {
  /** The project to break (a copy: the suite writes into it). */
  readonly work: string;
  /** The API files the mutants change, relative to `work`. */
  readonly files: readonly string[];
  readonly commands: readonly (readonly string[])[];
  /**
   * What the generators promise for these files: `api` (syntax, grammar and name errors are errors;
   * the default) or `syntax` (only syntax errors: the controllers generate rbac reads).
   */
  readonly promise?: 'api' | 'syntax';
  readonly cleanup: () => void;
}

function fuzzSuite(
  name: string,
  setup: () => Promise<FuzzProject>,
  runs: number,
  crdDir = 'config/crd/bases',
): void {
  describe(name, () => {
    let project: FuzzProject;
    const oracle = new CompilerOracle();
    let originals: { path: string; text: string }[] = [];
    before(async () => {
      project = await setup();
      originals = project.files.map((path) => ({
        path,
        text: readFileSync(join(project.work, path), 'utf8'),
      }));
    });
    after(() => project.cleanup());

    const apiTexts = (mutant?: Mutant): Map<string, string> =>
      new Map(
        originals.map((o) => [
          join(project.work, o.path),
          mutant && mutant.file === o.path ? mutant.text : o.text,
        ]),
      );

    it('the unmutated project compiles and generates (the oracle and the fixture agree)', async () => {
      assert.deepEqual(
        project.promise === 'syntax' ? oracle.syntaxErrors(apiTexts()) : oracle.errors(apiTexts(), true),
        [],
      );
      for (const argv of project.commands)
        assert.equal((await run(project.work, ...argv)).code, 0, argv.join(' '));
    });

    /** The property for one mutant: every generator fails cleanly when it must, and never writes a wrong artifact. */
    /** Mutants every generator had to refuse, and commands whose artifacts were checked after exit 0. */
    const tally = { mustFail: 0, artifacts: 0 };
    async function checkMutant(mutant: Mutant): Promise<void> {
      const { work } = project;
      // A fresh copy of the generated state: the generators' outputs as the unmutated project has them.
      for (const o of originals)
        writeFileSync(join(work, o.path), o.path === mutant.file ? mutant.text : o.text);
      const compilerErrors =
        project.promise === 'syntax'
          ? oracle.syntaxErrors(apiTexts(mutant))
          : oracle.errors(apiTexts(mutant));
      const go = mutant.goMarker && GO_MARKERS.find((m) => m.text === mutant.goMarker?.marker);
      if (compilerErrors.length > 0) tally.mustFail++;
      for (const argv of project.commands) {
        const prior = snapshot(work);
        const r = await run(work, ...argv);
        const cmd = argv.join(' ');
        const context: string = `${mutant.description}\n${cmd}: exit ${r.code}\n${r.err}\ncompiler: ${compilerErrors.join('\n')}`;
        assert.notEqual(r.code, 70, `internal error\n${context}`);
        // generate crd/client report every Go-form marker in an API file, generate rbac its own; none
        // of the inserted ones is generate webhook's.
        const goFlagged = go !== undefined && (argv[1] === 'rbac' ? go.rbac : argv[1] !== 'webhook');
        const mustFail = compilerErrors.length > 0 || goFlagged;
        if (mustFail) assert.equal(r.code, 1, `must fail\n${context}`);
        if (goFlagged) {
          assert.match(
            r.err,
            new RegExp(
              `${mutant.file.replaceAll('.', '\\.')}:${mutant.goMarker?.line}: [+@]kubebuilder|:${mutant.goMarker?.line}: \\+\\w`,
            ),
            `the Go-form marker is reported at its line\n${context}`,
          );
        }
        if (r.code !== 0) {
          assert.equal(r.code, 1, context);
          // file:line, or (when the mutant removed every @kind, so there is no line to point at) the API folder.
          assert.match(
            r.err,
            /^op-gen: ([^\s:]+:\d+(:\d+)?: |[^\s:]+: no kinds found\. )/,
            `a file:line message\n${context}`,
          );
          assert.deepEqual(snapshot(work), prior, `nothing written\n${context}`);
        } else {
          checkArtifacts(argv, prior, snapshot(work), crdDir, oracle, context);
          tally.artifacts++;
        }
      }
    }

    it(`holds for ${runs === Infinity ? 'every' : runs} mutant${runs === 1 ? '' : 's'}`, async (t) => {
      const all = runs === Infinity ? allMutants(originals) : [];
      if (runs === Infinity) {
        assert.ok(all.length > 1000, `the mutation space has ${all.length} mutants`);
        const failures: string[] = [];
        for (const mutant of all) {
          try {
            await checkMutant(mutant);
          } catch (err) {
            failures.push(err instanceof Error ? err.message : String(err));
          }
        }
        assert.deepEqual(failures, [], `${failures.length} of ${all.length} mutants fail`);
        assertFloor(t, 'mutants the compiler rejects', tally.mustFail, all.length * 0.1);
        assertFloor(t, 'commands that exited 0, their artifacts checked', tally.artifacts, all.length * 0.1);
        return;
      }
      const seen = new Set<string>();
      await assertProperty(
        t,
        fc.asyncProperty(mutationChoice, async (choice) => {
          const mutant = mutate(originals, choice);
          fc.pre(mutant !== undefined && !seen.has(mutant.text));
          if (!mutant) return;
          seen.add(mutant.text);
          await checkMutant(mutant);
        }),
        runs,
        { endOnFailure: true },
      );
      assertFloor(
        t,
        'mutants the compiler rejects (every generator must refuse them)',
        tally.mustFail,
        runs * 0.1,
      );
      assertFloor(t, 'commands that exited 0, their artifacts checked', tally.artifacts, runs * 0.1);
    });
  });
}

fuzzSuite(
  'mutated API sources of the scaffold never give a wrong artifact with exit 0',
  async () => {
    const { dir, cleanup } = await scaffoldTemplate();
    return {
      work: copyProject(dir, 'fuzz'),
      files: ['src/api/cache/v1alpha1/memcached.ts', 'src/api/cache/v1alpha1/groupversion.ts'],
      commands: [
        ['generate', 'crd'],
        ['generate', 'client'],
        ['generate', 'rbac'],
        // The other readers of the API sources: @csv markers and the API reference.
        ['bundle', '--version', '0.1.0'],
        ['generate', 'docs'],
      ],
      cleanup,
    };
  },
  RUNS,
);

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'crd');
const RICH_FILES = [
  'api/common/types.ts',
  'api/shop/v1/store_types.ts',
  'api/shop/v1/groupversion.ts',
  'api/shop/v1alpha1/store_types.ts',
  'api/infra/v1/backup_types.ts',
  'api/deploy/v1/release_types.ts',
  'api/guard/v1/guard_types.ts',
];

fuzzSuite(
  'mutated rich API sources (shared types, versions, unions, CEL) never give a wrong artifact with exit 0',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'op-gen-fuzz-rich-'));
    cpSync(join(FIXTURES, 'api'), join(dir, 'api'), { recursive: true });
    cpSync(join(FIXTURES, 'api-unions', 'deploy'), join(dir, 'api', 'deploy'), { recursive: true });
    cpSync(join(FIXTURES, 'api-cel', 'guard'), join(dir, 'api', 'guard'), { recursive: true });
    return Promise.resolve({
      work: dir,
      files: RICH_FILES,
      commands: [
        ['generate', 'crd', '--api-dir', 'api', '--out', 'crds'],
        ['generate', 'client', '--api-dir', 'api', '--out', 'clients'],
      ],
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    });
  },
  RICH_RUNS,
  'crds',
);

fuzzSuite(
  'mutated controller sources never give wrong RBAC with exit 0',
  async () => {
    const { dir, cleanup } = await scaffoldTemplate();
    return {
      work: copyProject(dir, 'fuzz-controller'),
      files: ['src/controllers/memcached.controller.ts', 'src/main.ts'],
      commands: [['generate', 'rbac']],
      promise: 'syntax',
      cleanup,
    };
  },
  RICH_RUNS,
);

fuzzSuite(
  'mutated webhook sources never give a wrong webhook configuration with exit 0',
  async () => {
    const dir = await webhookProject();
    return {
      work: dir,
      files: ['src/webhooks/cache/v1/memcached.webhook.ts'],
      commands: [['generate', 'webhook']],
      promise: 'syntax',
      cleanup: () => rmSync(join(dir, '..'), { recursive: true, force: true }),
    };
  },
  RICH_RUNS,
);
