import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import ts from 'typescript';
import { generateCrds } from '../../../src/generate/crd/index.ts';
import { renderTypes } from '../../../src/generate/types/index.ts';
import { toYamlDocuments } from '../../../src/shared/yaml.ts';
import { createProgram, type Diagnostic } from './tsc.ts';

const repo = join(import.meta.dirname, '..', '..', '..');
const api = join(repo, 'test', 'fixtures', 'crd');

/** Each kind of generate crd's rich fixture API: its source type and the type generated back from its CRD. */
const KINDS = [
  {
    name: 'Backup',
    src: 'api/infra/v1/backup_types.ts',
    type: 'Backup',
    gen: 'infra.example.com/v1/backup.ts',
  },
  {
    name: 'Policy',
    src: 'api/infra/v1/backup_types.ts',
    type: 'PolicyKind',
    gen: 'infra.example.com/v1/policy.ts',
  },
  { name: 'Store v1', src: 'api/shop/v1/store_types.ts', type: 'Store', gen: 'shop.example.com/v1/store.ts' },
  {
    name: 'Store v1alpha1',
    src: 'api/shop/v1alpha1/store_types.ts',
    type: 'Store',
    gen: 'shop.example.com/v1alpha1/store.ts',
  },
] as const;

/**
 * Where the round trip is knowingly not the identity, and why (a CRD schema cannot say more, or a marker
 * made the schema say something else than the TypeScript type):
 * - `color` has `@optional`, `region` has `@required`: the CRD (and so the generated type) follows the marker;
 * - `containers[].args` is a `readonly string[]` in the source: a CRD has no notion of readonly;
 * - `logLevel` is a TypeScript string enum: its members are nominal, the generated type is the literal union;
 * - `payment` is a union of two object types: a structural schema has one object with every field;
 * - `tier` is a `string` narrowed by `@enum bronze;silver;gold`: the generated type is the literal union.
 */
const KNOWN_DIFFERENCES = [
  'Store v1 .spec.color: optional in the CRD, required in the source',
  'Store v1 .spec.containers: types differ',
  'Store v1 .spec.logLevel: types differ',
  'Store v1 .spec.payment: types differ',
  'Store v1 .spec.region: required in the CRD, optional in the source',
  'Store v1 .spec.tier: types differ',
];

describe(
  'round trip: TS types → generate crd → generate types gives equivalent types',
  { timeout: 120_000 },
  () => {
    let dir: string;
    let differences: string[];
    let diagnostics: Diagnostic[];

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'op-gen-round-trip-'));
      writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
      const { crds } = await generateCrds({ cwd: api, apiDir: 'api', check: true });
      const files = await renderTypes({
        cwd: dir,
        from: ['-'],
        outDir: 'types',
        stdin: () => toYamlDocuments(crds),
      });
      for (const f of files) {
        mkdirSync(join(f.path, '..'), { recursive: true });
        writeFileSync(f.path, f.content);
      }
      const pairs = KINDS.map(
        (k, i) =>
          `export type Src${i} = import('${join(api, k.src)}').${k.type};\n` +
          `export type Gen${i} = import('./types/${k.gen}').${k.type === 'PolicyKind' ? 'Policy' : k.type};\n`,
      ).join('');
      writeFileSync(join(dir, 'pairs.ts'), pairs);
      const program = createProgram([join(dir, 'pairs.ts')]);
      // generate crd's fixture declares a TypeScript enum on purpose (TS1294 under erasableSyntaxOnly).
      diagnostics = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.code !== 1294)
        .map((d) => ({
          file: d.file?.fileName ?? '',
          line: 0,
          code: d.code,
          message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
        }));
      differences = compare(program, join(dir, 'pairs.ts'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('both sides compile', () => {
      assert.deepEqual(diagnostics, []);
    });

    it('every field of spec, status and other top-level fields maps back to the same type, except the known ones', () => {
      assert.deepEqual(differences, KNOWN_DIFFERENCES);
    });
  },
);

/** Field by field under each top-level field: presence, optionality and mutual assignability. */
function compare(program: ts.Program, pairsFile: string): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(pairsFile);
  if (!source) throw new Error('pairs.ts not in the program');
  const aliases = new Map<string, ts.Type>();
  source.forEachChild((node) => {
    if (ts.isTypeAliasDeclaration(node)) aliases.set(node.name.text, checker.getTypeAtLocation(node.name));
  });
  const out: string[] = [];
  const props = (t: ts.Type): Map<string, ts.Symbol> =>
    new Map(checker.getPropertiesOfType(checker.getNonNullableType(t)).map((p) => [p.name, p]));
  const optional = (s: ts.Symbol): boolean => (s.flags & ts.SymbolFlags.Optional) !== 0;
  const typeOf = (s: ts.Symbol): ts.Type => checker.getNonNullableType(checker.getTypeOfSymbol(s));
  KINDS.forEach((k, i) => {
    const src = aliases.get(`Src${i}`);
    const gen = aliases.get(`Gen${i}`);
    if (!src || !gen) throw new Error(`pair ${i} missing`);
    const srcTop = props(src);
    const genTop = props(gen);
    const topNames = [...new Set([...srcTop.keys(), ...genTop.keys()])].filter(
      (n) => !['apiVersion', 'kind', 'metadata'].includes(n),
    );
    for (const top of topNames.sort()) {
      const s = srcTop.get(top);
      const g = genTop.get(top);
      if (!s || !g) {
        out.push(`${k.name} .${top}: only in the ${s ? 'source' : 'CRD'}`);
        continue;
      }
      const sFields = props(typeOf(s));
      const gFields = props(typeOf(g));
      const nested = sFields.size > 0 || gFields.size > 0;
      if (!nested) {
        if (!mutual(checker, typeOf(s), typeOf(g))) out.push(`${k.name} .${top}: types differ`);
        continue;
      }
      for (const name of [...new Set([...sFields.keys(), ...gFields.keys()])].sort()) {
        const sf = sFields.get(name);
        const gf = gFields.get(name);
        const path = `${k.name} .${top}.${name}`;
        if (!sf || !gf) out.push(`${path}: only in the ${sf ? 'source' : 'CRD'}`);
        else if (optional(sf) !== optional(gf))
          out.push(
            `${path}: ${optional(gf) ? 'optional' : 'required'} in the CRD, ${optional(sf) ? 'optional' : 'required'} in the source`,
          );
        else if (!mutual(checker, typeOf(sf), typeOf(gf))) out.push(`${path}: types differ`);
      }
    }
  });
  return out;
}

/** Assignable both ways (so `readonly` arrays in the source count as a difference). */
function mutual(checker: ts.TypeChecker, a: ts.Type, b: ts.Type): boolean {
  return checker.isTypeAssignableTo(a, b) && checker.isTypeAssignableTo(b, a);
}
