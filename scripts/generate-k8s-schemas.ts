/**
 * Builds data/k8s-schemas/v<minor>.json (the schemas op-gen embeds for fields typed with Kubernetes'
 * built-in types) by running controller-gen itself over the k8s.io/api types of every release in
 * tools/envtest/versions.json, and writes the expected CRDs of the built-in type test
 * (test/golden/crd-k8s/controller-gen/v<minor>.yaml, controller-gen on test/fixtures/crd-k8s/go).
 *
 * Run: node scripts/generate-k8s-schemas.ts   (needs Go and the Go module proxy; docs/generate-crd-builtin-types.md)
 *
 * Per release: a throw-away Go module requiring k8s.io/api and k8s.io/apimachinery at the release's
 * version gets a package with one kind whose spec has one field, without a doc comment, per built-in
 * type (so controller-gen writes the type's own schema and description there), plus a copy of the
 * fixture package. controller-gen writes the CRDs; each type's schema is then stored once, with the
 * object schemas nested in it that equal another type's schema (descriptions aside) replaced by
 * `{$ref: <type>, description: <the field's>}`. Every type is inlined again and checked equal to
 * controller-gen's output before anything is written.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'yaml';
import { CONTROLLER_GEN_VERSION, controllerGen } from '../bench/compare/tools.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = { [k: string]: Json };

const ROOT = new URL('..', import.meta.url).pathname;
const COMMAND = 'node scripts/generate-k8s-schemas.ts';

/** The k8s.io/api packages whose types can be embedded: the GA group-versions the API server serves. */
const API_PACKAGES = [
  'admissionregistration/v1',
  'apps/v1',
  'authentication/v1',
  'authorization/v1',
  'autoscaling/v1',
  'autoscaling/v2',
  'batch/v1',
  'certificates/v1',
  'coordination/v1',
  'core/v1',
  'discovery/v1',
  'events/v1',
  'flowcontrol/v1',
  'networking/v1',
  'node/v1',
  'policy/v1',
  'rbac/v1',
  'resource/v1',
  'scheduling/v1',
  'storage/v1',
  'storagemigration/v1',
];

/** The apimachinery types API types use (meta/v1 also holds Table and friends, which are no field types). */
const APIMACHINERY: Readonly<Record<string, { dir: string; prefix: string; types: readonly string[] }>> = {
  metav1: {
    dir: 'pkg/apis/meta/v1',
    prefix: 'io.k8s.apimachinery.pkg.apis.meta.v1',
    types: [
      'APIResource',
      'Condition',
      'ConditionStatus',
      'DeleteOptions',
      'Duration',
      'FieldSelectorOperator',
      'FieldSelectorRequirement',
      'FieldsV1',
      'GroupResource',
      'LabelSelector',
      'LabelSelectorOperator',
      'LabelSelectorRequirement',
      'ListMeta',
      'ManagedFieldsEntry',
      'ManagedFieldsOperationType',
      'MicroTime',
      'ObjectMeta',
      'OwnerReference',
      'Patch',
      'Preconditions',
      'ShardInfo',
      'Status',
      'StatusCause',
      'StatusDetails',
      'StatusReason',
      'CauseType',
      'Time',
      'WatchEvent',
    ],
  },
  resource: { dir: 'pkg/api/resource', prefix: 'io.k8s.apimachinery.pkg.api.resource', types: ['Quantity'] },
  intstr: { dir: 'pkg/util/intstr', prefix: 'io.k8s.apimachinery.pkg.util.intstr', types: ['IntOrString'] },
  runtime: { dir: 'pkg/runtime', prefix: 'io.k8s.apimachinery.pkg.runtime', types: ['RawExtension'] },
};

interface Release {
  readonly kubernetes: string;
}
const versions = JSON.parse(readFileSync(join(ROOT, 'tools/envtest/versions.json'), 'utf8')) as {
  default: string;
  releases: Record<string, Release>;
};

function spawn(
  cmd: string,
  args: readonly string[],
  cwd: string,
): { status: number | null; out: string; err: string } {
  const r = spawnSync('nice', [cmd, ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, GOFLAGS: '-p=1 -mod=mod', GOTOOLCHAIN: 'local' },
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

function run(cmd: string, args: readonly string[], cwd: string): string {
  const r = spawn(cmd, args, cwd);
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed:\n${r.err}${r.out}`.slice(0, 20000));
  return r.out;
}

interface GoType {
  readonly alias: string;
  readonly name: string;
  readonly definition: string;
  /** The package's source folder. */
  readonly dir: string;
}

interface Declaration {
  readonly file: string;
  readonly name: string;
  readonly from: number;
  readonly to: number;
  readonly body: string;
}

/** The type declarations of a Go package folder, with their line spans. */
function declarations(dir: string): Declaration[] {
  const out: Declaration[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.go') || file.endsWith('_test.go')) continue;
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/^type ([A-Z]\w*) (struct \{([\s\S]*?)^\}|.*$)/gm)) {
      const from = text.slice(0, m.index).split('\n').length;
      out.push({
        file: join(dir, file),
        name: m[1]!,
        from,
        to: from + m[0].split('\n').length - 1,
        body: m[3] ?? '',
      });
    }
  }
  return out;
}

/**
 * controller-gen refuses some types (e.g. a listMapKey on a list that is not a map, in resource/v1 of
 * 1.35): as with Go, a type that fails cannot be embedded, so it and every type using it are left out.
 * Its errors name file:line; the types declared there, and (by name, within the package) those that
 * use them, are returned.
 */
function refusedTypes(errors: string, types: readonly GoType[]): Set<string> {
  const refused = new Set<string>();
  const byDir = new Map<string, Declaration[]>();
  for (const m of errors.matchAll(/^(\/\S+\.go):(\d+):\d+: /gm)) {
    const file = m[1]!;
    const line = Number(m[2]);
    const dir = file.slice(0, file.lastIndexOf('/'));
    if (!byDir.has(dir)) byDir.set(dir, declarations(dir));
    const decl = byDir.get(dir)!.find((d) => d.file === file && d.from <= line && line <= d.to);
    const type = decl && types.find((t) => t.dir === dir && t.name === decl.name);
    if (type) refused.add(type.definition);
  }
  // Users of a refused type, within its package, transitively.
  for (let grew = true; grew;) {
    grew = false;
    for (const [dir, decls] of byDir) {
      for (const d of decls) {
        const t = types.find((x) => x.dir === dir && x.name === d.name);
        if (!t || refused.has(t.definition)) continue;
        const uses = [...refused].some((r) => {
          const name = r.slice(r.lastIndexOf('.') + 1);
          return (
            types.some((x) => x.definition === r && x.dir === dir) && new RegExp(`\\b${name}\\b`).test(d.body)
          );
        });
        if (uses) {
          refused.add(t.definition);
          grew = true;
        }
      }
    }
  }
  return refused;
}

/** Exported struct types (not lists) and named string types declared in a Go package's sources. */
function scanPackage(dir: string): string[] {
  const names: string[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.go') || file.endsWith('_test.go') || file.startsWith('zz_generated')) continue;
    if (file.includes('generated')) continue;
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/^type ([A-Z]\w*) (struct \{([\s\S]*?)^\}|string$)/gm)) {
      const body = m[3] ?? '';
      if (m[2] !== 'string' && /\bmetav1\.ListMeta\b/.test(body) && m[1]!.endsWith('List')) continue;
      names.push(m[1]!);
    }
  }
  return names;
}

function goTypes(apiDir: string, machineryDir: string): GoType[] {
  const types: GoType[] = [];
  for (const pkg of API_PACKAGES) {
    const dir = join(apiDir, pkg);
    if (!existsSync(dir)) continue;
    const [group, version] = pkg.split('/') as [string, string];
    const alias = `${group}${version}`;
    for (const name of scanPackage(dir))
      types.push({ alias, name, dir, definition: `io.k8s.api.${group}.${version}.${name}` });
  }
  for (const [alias, { dir, prefix, types: names }] of Object.entries(APIMACHINERY)) {
    const declared = new Set(
      readdirSync(join(machineryDir, dir)).flatMap((f) =>
        f.endsWith('.go')
          ? [...readFileSync(join(machineryDir, dir, f), 'utf8').matchAll(/^type (\w+) /gm)].map((m) => m[1])
          : [],
      ),
    );
    for (const name of names)
      if (declared.has(name))
        types.push({ alias, name, dir: join(machineryDir, dir), definition: `${prefix}.${name}` });
  }
  return types;
}

function wrapperSource(types: readonly GoType[]): string {
  const imports = new Map<string, string>();
  for (const pkg of API_PACKAGES) imports.set(pkg.replace('/', ''), `k8s.io/api/${pkg}`);
  for (const [alias, { dir }] of Object.entries(APIMACHINERY))
    imports.set(alias, `k8s.io/apimachinery/${dir}`);
  const used = new Set(types.map((t) => t.alias));
  used.add('metav1');
  const fields = types.map((t, i) => `\tF${i} ${t.alias}.${t.name} \`json:"${t.definition},omitempty"\``);
  return `package v1

import (
${[...imports]
  .filter(([a]) => used.has(a))
  .map(([a, p]) => `\t${a} "${p}"`)
  .join('\n')}
)

// +kubebuilder:object:root=true
type Wrap struct {
\tmetav1.TypeMeta   \`json:",inline"\`
\tmetav1.ObjectMeta \`json:"metadata,omitempty"\`
\tSpec              WrapSpec \`json:"spec"\`
}

type WrapSpec struct {
${fields.join('\n')}
}
`;
}

const stripDescription = (s: Json): Json => {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) return s;
  const { description: _, ...rest } = s;
  return rest;
};
const key = (s: Json): string => JSON.stringify(canonical(stripDescription(s)));
function canonical(v: Json): Json {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical(v[k]!)]),
    );
  return v;
}

/** Positions in a schema that hold schemas. */
function mapChildren(s: Schema, f: (child: Schema) => Json): Schema {
  const out: Schema = { ...s };
  const props = s.properties;
  if (props && typeof props === 'object' && !Array.isArray(props))
    out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, f(v as Schema)]));
  for (const k of ['items', 'additionalProperties', 'not'])
    if (s[k] && typeof s[k] === 'object' && !Array.isArray(s[k])) out[k] = f(s[k] as Schema);
  for (const k of ['anyOf', 'allOf', 'oneOf']) if (Array.isArray(s[k])) out[k] = (s[k] as Schema[]).map(f);
  return out;
}

/** Stores each type once: nested object schemas equal to another type's (descriptions aside) become $refs. */
function deinline(schemas: ReadonlyMap<string, Schema>): Record<string, Schema> {
  const byKey = new Map<string, string[]>();
  for (const [name, s] of schemas) {
    if (!s.properties) continue; // only object types: a $ref to a string type would save nothing
    byKey.set(key(s), [...(byKey.get(key(s)) ?? []), name]);
  }
  const pick = (node: Schema, self: string): string | undefined => {
    const candidates = (byKey.get(key(node)) ?? []).filter((c) => c !== self);
    if (candidates.length === 0) return undefined;
    const pkg = self.slice(0, self.lastIndexOf('.'));
    const fits = (c: string): boolean =>
      node.description !== undefined || schemas.get(c)!.description === undefined;
    // The choice never changes the inlined result (the field's description is kept); prefer the type
    // itself when the description says so, then one of the same package.
    return (
      candidates.find((c) => fits(c) && schemas.get(c)!.description === node.description) ??
      candidates.find((c) => fits(c) && c.startsWith(`${pkg}.`)) ??
      candidates.find(fits)
    );
  };
  const out: Record<string, Schema> = {};
  for (const [name, s] of schemas) {
    const walk = (node: Schema): Schema => {
      const ref = pick(node, name);
      if (ref) {
        const r: Schema = { $ref: ref };
        if (node.description !== undefined && node.description !== schemas.get(ref)!.description)
          r.description = node.description;
        return r;
      }
      return mapChildren(node, walk);
    };
    out[name] = mapChildren(s, walk);
  }
  return out;
}

/** The inverse, as src/generate/crd/builtin-schemas.ts does it. */
function inline(defs: Record<string, Schema>, node: Schema): Schema {
  if (typeof node.$ref === 'string') {
    const { $ref, ...rest } = node;
    return { ...inline(defs, defs[$ref]!), ...rest };
  }
  return mapChildren(node, (c) => inline(defs, c));
}

function withoutDescriptions(v: Json): Json {
  if (Array.isArray(v)) return v.map(withoutDescriptions);
  if (v !== null && typeof v === 'object') {
    const out: Schema = {};
    for (const [k, x] of Object.entries(v)) {
      // `description` as a property name (e.g. of a schema with such a field) is kept.
      if (k === 'description' && typeof x === 'string') continue;
      out[k] = withoutDescriptions(x);
    }
    return out;
  }
  return v;
}

interface Crd {
  spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
}

const bin = controllerGen();
if (!bin) {
  console.error('generate-k8s-schemas: Go is needed (go version failed)');
  process.exit(1);
}
const fixture = join(ROOT, 'test/fixtures/crd-k8s/go/api');
const manifest: Record<string, Json> = {
  command: COMMAND,
  controllerTools: CONTROLLER_GEN_VERSION,
  go: run('go', ['env', 'GOVERSION'], ROOT).trim(),
  default: versions.default,
  releases: {},
};
const results: { minor: string; data: string; golden: string }[] = [];
for (const [minor, release] of Object.entries(versions.releases)) {
  const apiVersion = `v0.${release.kubernetes.split('.').slice(1).join('.')}`;
  const dir = mkdtempSync(join(tmpdir(), `op-gen-k8s-schemas-${minor}-`));
  try {
    writeFileSync(
      join(dir, 'go.mod'),
      `module op-gen.dev/k8sschemas\n\ngo 1.26\n\nrequire (\n\tk8s.io/api ${apiVersion}\n\tk8s.io/apimachinery ${apiVersion}\n)\n`,
    );
    const mods = run(
      'go',
      ['mod', 'download', '-json', `k8s.io/api@${apiVersion}`, `k8s.io/apimachinery@${apiVersion}`],
      dir,
    );
    const modDirs = new Map<string, string>();
    for (const text of mods.split(/\n(?=\{)/)) {
      const mod = JSON.parse(text) as { Path: string; Dir: string };
      modDirs.set(mod.Path, mod.Dir);
    }
    let types = goTypes(modDirs.get('k8s.io/api')!, modDirs.get('k8s.io/apimachinery')!);
    mkdirSync(join(dir, 'wrap/v1'), { recursive: true });
    writeFileSync(
      join(dir, 'wrap/v1/groupversion_info.go'),
      '// +groupName=k8s-schemas.op-gen.dev\npackage v1\n',
    );
    mkdirSync(join(dir, 'fixture/v1'), { recursive: true });
    for (const f of readdirSync(join(fixture, 'v1')))
      writeFileSync(join(dir, 'fixture/v1', f), readFileSync(join(fixture, 'v1', f)));
    const out = join(dir, 'out');
    const refused: string[] = [];
    for (let attempt = 1; ; attempt++) {
      writeFileSync(join(dir, 'wrap/v1/wrap.go'), wrapperSource(types));
      run('go', ['mod', 'tidy'], dir);
      console.log(
        `${minor}: controller-gen ${CONTROLLER_GEN_VERSION} over ${types.length} types of k8s.io/api ${apiVersion} ...`,
      );
      rmSync(out, { recursive: true, force: true });
      const r = spawn(bin, ['crd', 'paths=./...', `output:crd:dir=${out}`], dir);
      if (r.status === 0) break;
      const left = refusedTypes(r.err, types);
      if (left.size === 0 || attempt === 5) throw new Error(`${minor}: controller-gen failed:\n${r.err}`);
      console.log(`${minor}: controller-gen refuses ${[...left].join(', ')}; left out`);
      refused.push(...left);
      types = types.filter((t) => !left.has(t.definition));
    }
    const wrapCrd = parse(readFileSync(join(out, 'k8s-schemas.op-gen.dev_wraps.yaml'), 'utf8')) as Crd;
    const spec = wrapCrd.spec.versions[0]!.schema.openAPIV3Schema.properties as Record<string, Schema>;
    const generated = new Map(Object.entries((spec.spec!.properties ?? {}) as Record<string, Schema>));
    const missing = types.filter((t) => !generated.has(t.definition)).map((t) => t.definition);
    if (missing.length) throw new Error(`${minor}: controller-gen wrote no schema for ${missing.join(', ')}`);
    const definitions = deinline(generated);
    for (const [name, s] of generated) {
      if (!isDeepStrictEqual(canonical(inline(definitions, definitions[name]!)), canonical(s)))
        throw new Error(`${minor}: ${name} does not inline back to controller-gen's schema`);
    }
    const sorted = Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => (a < b ? -1 : 1)));
    const data = `${JSON.stringify({
      kubernetes: `v${release.kubernetes}`,
      source: `controller-gen ${CONTROLLER_GEN_VERSION} on k8s.io/api ${apiVersion} (${COMMAND})`,
      definitions: sorted,
    })}\n`;
    const appCrd = parse(readFileSync(join(out, 'k8s.example.com_apps.yaml'), 'utf8')) as Json;
    const golden =
      `# controller-gen ${CONTROLLER_GEN_VERSION} on test/fixtures/crd-k8s/go with k8s.io/api ${apiVersion},\n` +
      `# descriptions removed. Regenerate: ${COMMAND}\n${stringify(withoutDescriptions(appCrd), { lineWidth: 0 })}`;
    (manifest.releases as Record<string, Json>)[minor] = {
      kubernetes: release.kubernetes,
      'k8s.io/api': apiVersion,
      'k8s.io/apimachinery': apiVersion,
      types: types.length,
      refusedByControllerGen: refused.sort(),
    };
    results.push({ minor, data, golden });
    console.log(`${minor}: ${types.length} types, ${(data.length / 1e6).toFixed(2)} MB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
// Written only once every release succeeded.
mkdirSync(join(ROOT, 'test/golden/crd-k8s/controller-gen'), { recursive: true });
for (const { minor, data, golden } of results) {
  writeFileSync(join(ROOT, `data/k8s-schemas/v${minor}.json`), data);
  writeFileSync(join(ROOT, `test/golden/crd-k8s/controller-gen/v${minor}.yaml`), golden);
}
writeFileSync(join(ROOT, 'data/k8s-schemas/manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(
  `wrote data/k8s-schemas/ and test/golden/crd-k8s/controller-gen/ for ${results.map((r) => r.minor).join(', ')}`,
);
