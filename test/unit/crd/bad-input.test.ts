import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';

/**
 * Each unsupported construct or bad marker gets its own error naming file:line, the type path and a
 * fix; the exit code is non-zero and no file is written.
 */
interface BadCase {
  readonly name: string;
  /** Spec fields (inside `export interface ThingSpec { ... }`), one per line. */
  readonly spec?: string;
  /** Extra declarations before the spec. */
  readonly decls?: string;
  /** Replaces the whole types file (then `spec`/`decls` are ignored). */
  readonly file?: string;
  readonly groupVersion?: string;
  /** The expected message: file:line, path and fix. */
  readonly error: RegExp;
}

const KIND = (extraMarkers = '') => `
/**
 * Thing is a test kind.
 * @kind${extraMarkers}
 */
export interface Thing {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: ThingSpec;
  status?: { ready?: boolean };
}
`;

const CASES: BadCase[] = [
  {
    name: 'any',
    spec: 'size: any;',
    error: /types\.ts:4: Thing\.spec\.size: has type `any`\. Write the real type, or `PreserveUnknownFields`/,
  },
  {
    name: 'unknown',
    spec: 'blob: unknown;',
    error: /types\.ts:4: Thing\.spec\.blob: has type `unknown`.*@preserveUnknownFields/,
  },
  {
    name: 'tuple',
    spec: 'pair: [string, number];',
    error: /types\.ts:4: Thing\.spec\.pair: is a tuple\. Structural schemas cannot/,
  },
  {
    name: 'function',
    spec: 'run: () => void;',
    error: /types\.ts:4: Thing\.spec\.run: is a function\. Functions are not data/,
  },
  { name: 'method', spec: 'run(): void;', error: /types\.ts:4: Thing\.spec\.run: is a method/ },
  {
    name: 'recursive type',
    decls: 'export interface Node { children?: Node[]; }',
    spec: 'tree: Node;',
    error:
      /Thing\.spec\.tree\.children\[\]: is recursive \(`Node` contains itself\)\. Structural schemas cannot be recursive/,
  },
  {
    // Valid TypeScript (an array that contains itself); was a stack overflow (exit 70).
    name: 'recursive array alias',
    decls: 'export type Nested = Nested[];',
    spec: 'nested: Nested;',
    error:
      /Thing\.spec\.nested\[\]: is recursive \(`Nested` contains itself\)\. Structural schemas cannot be recursive/,
  },
  {
    name: 'bigint',
    spec: 'big: bigint;',
    error: /types\.ts:4: Thing\.spec\.big: is a bigint\. JSON has no bigint: use `int64`/,
  },
  {
    name: 'Date',
    spec: 'when: Date;',
    error: /types\.ts:4: Thing\.spec\.when: is a Date\. A Date is not JSON: use `Time`/,
  },
  {
    name: 'Map',
    spec: 'm: Map<string, string>;',
    error: /Thing\.spec\.m: has type `Map` which has no JSON form/,
  },
  {
    name: 'object union without discriminator whose member has no field of its own',
    decls: 'export interface A { a: string; }\nexport interface B { a: string; b: string; }',
    spec: 'ab: A | B;',
    error:
      /types\.ts:5: Thing\.spec\.ab: is a union of object types without a discriminator, and its member `A` has no field of its own, so nothing tells the members apart\. Give every member a required string-literal field/,
  },
  {
    name: 'object union whose members disagree on a field type',
    spec: "u: { type: 'A'; size: string } | { type: 'B'; size: number };",
    error:
      /types\.ts:4: Thing\.spec\.u: is a union whose members disagree on field `size`: string in `\{ type: "A"; size: string; \}`, number in `\{ type: "B"; size: number; \}`.*Give `size` the same type in every member/,
  },
  {
    name: 'union of an object and a string',
    spec: 'u: { a: string } | string;',
    error:
      /types\.ts:4: Thing\.spec\.u: is a union of different kinds of values \(string \| \{ a: string; \}\)\. A structural schema needs one type per field/,
  },
  {
    name: 'union with a map member',
    spec: "u: { type: 'A'; a: string } | Record<string, string>;",
    error:
      /types\.ts:4: Thing\.spec\.u: is a union whose member `Record<string, string>` is a map, not an object with fields/,
  },
  {
    name: '@unionMember on a required field',
    spec: '/** @unionMember */\n  a: { x?: string };\n  /** @unionMember */\n  b?: { y?: string };',
    error: /types\.ts:4: Thing\.spec\.a: is a @unionMember but required\. Make union members optional/,
  },
  {
    name: '@unionMember value the discriminator does not have',
    spec: "/** @unionDiscriminator */\n  type: 'Git' | 'OCI';\n  /** @unionMember */\n  git?: { url: string };\n  /** @unionMember Helm */\n  oci?: { image: string };",
    error:
      /types\.ts:8: Thing\.spec\.oci: is selected by type = "Helm", which is not one of type's values \("Git", "OCI"\)\. Add the value to type's type, or name the value/,
  },
  {
    name: '@unionDiscriminator that is not a string',
    spec: '/** @unionDiscriminator */\n  kind: number;\n  /** @unionMember */\n  a?: { x?: string };\n  /** @unionMember */\n  b?: { y?: string };',
    error:
      /types\.ts:4: Thing\.spec\.kind: is a @unionDiscriminator of type number\. A discriminator is a string/,
  },
  {
    name: 'a lone @unionMember',
    spec: '/** @unionMember */\n  a?: { x?: string };',
    error:
      /types\.ts:4: Thing\.spec\.a: is the only @unionMember of its type\. A union needs at least two fields/,
  },
  {
    name: 'mixed union',
    spec: 'v: string | number;',
    error: /Thing\.spec\.v: is a union of different kinds of values \(string \| number\)\..*IntOrString/,
  },
  {
    name: 'properties and index signature',
    spec: 'm: { fixed: string; [k: string]: string };',
    error:
      /Thing\.spec\.m: has both fixed fields and an index signature\. A structural schema cannot have properties and additionalProperties/,
  },
  {
    name: 'number index signature',
    spec: 'm: { [k: number]: string };',
    error: /Thing\.spec\.m: has a non-string index signature/,
  },
  {
    name: 'class',
    decls: 'export class C { x = 1; }',
    spec: 'c: C;',
    error: /Thing\.spec\.c: is the class `C`\. Use an interface/,
  },
  {
    name: 'unresolved generic',
    decls: 'export interface Box<T> { value: T; }',
    spec: 'b: Box<any>;',
    error: /Thing\.spec\.b\.value: has type `any`/,
  },
  {
    name: 'marker with a bad number',
    spec: '/** @minimum lots */\n  size: number;',
    error: /types\.ts:4: @minimum: value: expected a number, got "lots"\. See @minimum in docs\/markers\.md/,
  },
  {
    name: 'marker on the wrong type',
    spec: '/** @maxLength 3 */\n  size: number;',
    error: /types\.ts:4: @maxLength: applies to string values, but Thing\.spec\.size is number/,
  },
  {
    name: 'misspelt marker',
    spec: '/** @maximun 3 */\n  size: number;',
    error: /types\.ts:4: @maximun: unknown marker\. Did you mean @maximum\?/,
  },
  {
    name: 'kind marker on a field',
    spec: '/** @scope Cluster */\n  size: number;',
    error: /types\.ts:4: @scope: cannot stand on a field\. Put it on a type/,
  },
  {
    name: 'unknown marker argument',
    spec: '/** @validation rule="self > 0" colour=red */\n  size: number;',
    error: /@validation: unknown argument "colour"; known arguments: rule, message/,
  },
  {
    name: 'listMapKey on an optional field',
    decls: 'export interface Item { name?: string; }',
    spec: '/**\n   * @listType map\n   * @listMapKey name\n   */\n  items: Item[];',
    error:
      /types\.ts:8: Thing\.spec\.items: @listMapKey name: the key field must be required or have a @default\. Make name required/,
  },
  {
    name: 'listMapKey naming a missing field',
    decls: 'export interface Item { name: string; }',
    spec: '/**\n   * @listType map\n   * @listMapKey id\n   */\n  items: Item[];',
    error: /Thing\.spec\.items: @listMapKey id: the elements have no field "id"/,
  },
  {
    name: 'uniqueItems',
    spec: '/** @uniqueItems */\n  tags: string[];',
    error:
      /Thing\.spec\.tags: has uniqueItems: true, which the API server rejects in CRDs\. Use @listType set/,
  },
  {
    name: 'listType set of objects',
    spec: '/** @listType set */\n  xs: { a: string }[];',
    error: /Thing\.spec\.xs: @listType set needs scalar elements/,
  },
  {
    name: 'items: marker on a non-array',
    spec: '/** @items:minimum 1 */\n  size: number;',
    error: /@items:minimum: Thing\.spec\.size is not an array/,
  },
  {
    name: 'metadata not ObjectMeta',
    file: `export interface ThingSpec { size: number; }\n/** @kind */\nexport interface Thing {\n  metadata?: { name: string };\n  spec: ThingSpec;\n}\n`,
    error: /types\.ts:4: Thing\.metadata: has type `\{ name: string; \}`\. A kind's metadata is `ObjectMeta`/,
  },
  {
    name: 'kind not exported',
    file: `import type { ObjectMeta } from 'op-gen';\ninterface ThingSpec { size: number; }\n/** @kind */\ninterface Thing {\n  metadata?: ObjectMeta;\n  spec: ThingSpec;\n}\n`,
    error: /types\.ts:4: Thing: is marked @kind but not exported\. Write `export interface Thing`/,
  },
  {
    name: 'kind without spec or status',
    file: `import type { ObjectMeta } from 'op-gen';\n/** @kind */\nexport interface Thing {\n  metadata?: ObjectMeta;\n  data: string;\n}\n`,
    error: /types\.ts:3: Thing: has neither `spec` nor `status`/,
  },
  {
    name: 'status subresource without status',
    file: `import type { ObjectMeta } from 'op-gen';\n/**\n * @kind\n * @subresource status\n */\nexport interface Thing {\n  metadata?: ObjectMeta;\n  spec: { a?: string };\n}\n`,
    error: /types\.ts:4: @subresource status: Thing has no status field/,
  },
  {
    name: 'bad group',
    groupVersion: "export const groupVersion = { group: 'Things', version: 'v1' } as const;\n",
    spec: 'a: string;',
    error: /groupversion\.ts:1: group "Things" is not a DNS subdomain/,
  },
  {
    name: 'bad version',
    groupVersion: "export const groupVersion = { group: 'things.example.com', version: '1.0' } as const;\n",
    spec: 'a: string;',
    error: /groupversion\.ts:1: version "1\.0" is not a Kubernetes version/,
  },
  {
    name: 'missing groupVersion',
    groupVersion: 'export const gv = 1;\n',
    spec: 'a: string;',
    error: /groupversion\.ts:1: no `export const groupVersion` found/,
  },
  {
    name: 'no kinds',
    file: 'export interface NotAKind { a: string; }\n',
    error: /no kinds found\. Mark the root type of each kind with @kind/,
  },
  {
    name: 'bad plural',
    file: `import type { ObjectMeta } from 'op-gen';\n/**\n * @kind\n * @plural Things\n */\nexport interface Thing {\n  metadata?: ObjectMeta;\n  spec: { a?: string };\n}\n`,
    error: /Thing: plural "Things" is not a DNS-1035 label: a DNS-1035 label must consist of lower case/,
  },
  {
    name: 'kind marker on a non-kind type',
    decls: '/** @printcolumn name=A type=string jsonPath=.a */\nexport interface Inner { a?: string; }',
    spec: 'inner: Inner;',
    error:
      /types\.ts:2: @printcolumn: is a kind marker, but Inner is not a kind\. Put it on the root type marked @kind/,
  },
  {
    name: 'marker in the middle of a line',
    spec: '/** size of it. @minimum 1 */\n  size: number;',
    error:
      /types\.ts:4: @minimum: stands in the middle of a line, where it is not read as a marker\. Start a new comment line with it/,
  },
  {
    name: 'default of the wrong type',
    spec: '/** @default "three" */\n  size: number;',
    error:
      /Thing\.spec\.size: @default "three" is a string, the field is number\. Give a default that fits the type/,
  },
  {
    name: 'default outside the enum',
    spec: "/** @default big */\n  size?: 'small' | 'large';",
    error: /Thing\.spec\.size: @default "big" is not one of "small", "large"/,
  },
  {
    name: 'CEL rule naming a field that does not exist',
    spec: '/** @validation rule="self.sise > 0" */\n  size: { count?: number };',
    error:
      /types\.ts:4: Thing\.spec\.size: CEL rule "self\.sise > 0": it reads field "sise", which the schema does not have \(column 6 of the rule\)\. Fix the rule/,
  },
  {
    name: 'CEL rule with a syntax error',
    spec: '/** @validation rule="self.count >" */\n  size: { count?: number };',
    error:
      /types\.ts:4: Thing\.spec\.size: CEL rule "self\.count >": Unexpected token: EOF \(column 13 of the rule\)/,
  },
  {
    // The parser accepts `<>`; the checker's grammar check reports it, in a type no kind uses.
    name: 'an empty type argument list in a type the CRD does not use',
    decls: 'export type Things = Array<>;',
    spec: 'size?: number;',
    error: /types\.ts:2:\d+: Type argument list cannot be empty\. \(TS1099\)/,
  },
  // More shapes the parser accepts and the checker's grammar check rejects, each found by the
  // broken-input fuzz (`npm run test:fuzz`) as an exit 0 with a CRD.
  {
    name: 'a trailing comma in a type argument list',
    spec: 'sizes?: Array<number,>;',
    error: /types\.ts:4:\d+: Trailing comma not allowed\. \(TS1009\)/,
  },
  {
    name: 'a trailing comma in a declaration list',
    decls: 'export const limits = { max: 3 },;',
    spec: 'size?: number;',
    error: /types\.ts:2:\d+: Trailing comma not allowed\. \(TS1009\)/,
  },
  {
    name: 'an optional member in an object literal',
    decls: 'export const limits = { max?: 3 };',
    spec: 'size?: number;',
    error: /types\.ts:2:\d+: An object member cannot be declared optional\. \(TS1162\)/,
  },
  {
    name: 'an index signature without a parameter, in a type no kind uses',
    decls: 'export interface Loose { []: string }',
    spec: 'size?: number;',
    error: /types\.ts:2:\d+: An index signature must have exactly one parameter\. \(TS1096\)/,
  },
  {
    name: 'an interface member with an initializer, in a type no kind uses',
    decls: 'export interface Loose { size: number = 3 }',
    spec: 'size?: number;',
    error: /types\.ts:2:\d+: An interface property cannot have an initializer\. \(TS1246\)/,
  },
  {
    name: 'readonly on a type that is not an array (`readonly readonly string[]`)',
    spec: 'args?: readonly readonly string[];',
    error:
      /types\.ts:4:\d+: 'readonly' type modifier is only permitted on array and tuple literal types\. \(TS1354\)/,
  },
  {
    name: 'a modifier on an interface member (`public size: number`)',
    spec: 'public size?: number;',
    error: /types\.ts:4:\d+: 'public' modifier cannot appear on a type member\. \(TS1070\)/,
  },
  {
    name: 'a required tuple element after an optional one, in a type no kind uses',
    decls: 'export type Pair = [a?: string, b: number];',
    spec: 'size?: number;',
    error: /types\.ts:2:\d+: A required element cannot follow an optional element\. \(TS1257\)/,
  },
  {
    name: 'a default import the module does not have (`import type, { A }`)',
    file:
      "import type, { ObjectMeta } from 'op-gen';\nexport interface ThingSpec {\n  size?: number;\n}\n" +
      KIND(),
    error: /types\.ts:1:\d+: Module '"[^"]+"' has no default export\. \(TS1192\)/,
  },
  {
    name: '@kind on a comment a stray `;` takes from the interface',
    file:
      "import type { ObjectMeta } from 'op-gen';\nexport interface ThingSpec {\n  size?: number;\n}\n" +
      KIND().replace('export interface Thing', ';export interface Thing'),
    error:
      /types\.ts:8: @kind is in a doc comment that documents no interface or type alias, so no kind is generated from it\. Put the comment right above/,
  },
];

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  return {
    stream: new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString());
        done();
      },
    }),
    text: () => chunks.join(''),
  };
}

describe('generate crd rejects bad input with file:line, type path and fix', () => {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-crd-bad-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  for (const [i, c] of CASES.entries()) {
    it(c.name, async () => {
      const project = join(root, String(i));
      const dir = join(project, 'src/api/things/v1');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'groupversion.ts'),
        c.groupVersion ??
          "export const groupVersion = { group: 'things.example.com', version: 'v1' } as const;\n",
      );
      const body =
        c.file ??
        `import type { ObjectMeta } from 'op-gen';\n${c.decls ?? ''}\nexport interface ThingSpec {\n  ${c.spec ?? ''}\n}\n${KIND()}`;
      // Without decls, the spec's first line is line 4 of types.ts.
      writeFileSync(join(dir, 'types.ts'), body);
      const out = sink();
      const err = sink();
      const code = await main(['generate', 'crd', '--cwd', project], {
        stdout: out.stream,
        stderr: err.stream,
      });
      assert.notEqual(code, 0, 'non-zero exit');
      assert.match(err.text(), c.error);
      assert.match(err.text(), /^op-gen: /);
      assert.doesNotMatch(err.text(), /internal error|\n\s+at /, 'no stack trace');
      assert.equal(existsSync(join(project, 'config')), false, 'no file written');
    });
  }

  it('an error in one kind leaves existing CRD files untouched (atomic)', async () => {
    const project = join(root, 'atomic');
    const dir = join(project, 'src/api/things/v1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'groupversion.ts'),
      "export const groupVersion = { group: 'things.example.com', version: 'v1' } as const;\n",
    );
    writeFileSync(
      join(dir, 'a.ts'),
      `import type { ObjectMeta } from 'op-gen';\n/** @kind */\nexport interface Apple {\n  metadata?: ObjectMeta;\n  spec: { a?: string };\n}\n`,
    );
    const ok = await main(['generate', 'crd', '--cwd', project], {
      stdout: sink().stream,
      stderr: sink().stream,
    });
    assert.equal(ok, 0);
    const file = join(project, 'config/crd/bases/things.example.com_apples.yaml');
    const before = (await import('node:fs')).readFileSync(file, 'utf8');
    writeFileSync(
      join(dir, 'a.ts'),
      `import type { ObjectMeta } from 'op-gen';\n/** @kind */\nexport interface Apple {\n  metadata?: ObjectMeta;\n  spec: { a?: string; b?: string };\n}\n/** @kind */\nexport interface Pear {\n  metadata?: ObjectMeta;\n  spec: { when: Date };\n}\n`,
    );
    const err = sink();
    const code = await main(['generate', 'crd', '--cwd', project], {
      stdout: sink().stream,
      stderr: err.stream,
    });
    assert.equal(code, 1);
    assert.match(err.text(), /Pear\.spec\.when: is a Date/);
    assert.equal((await import('node:fs')).readFileSync(file, 'utf8'), before);
    assert.equal(existsSync(join(project, 'config/crd/bases/things.example.com_pears.yaml')), false);
  });

  it('a missing API folder says what to do', async () => {
    const err = sink();
    const code = await main(['generate', 'crd', '--cwd', join(root, 'nothing-here')], {
      stdout: sink().stream,
      stderr: err.stream,
    });
    assert.equal(code, 1);
    assert.match(
      err.text(),
      /no API folder at src\/api: create an API with `op-gen create api`, or pass --api-dir/,
    );
  });

  it('--max-desc-len must be a whole number (usage error, exit 2)', async () => {
    const code = await main(['generate', 'crd', '--max-desc-len', 'x'], {
      stdout: sink().stream,
      stderr: sink().stream,
    });
    assert.equal(code, 2);
  });
});
