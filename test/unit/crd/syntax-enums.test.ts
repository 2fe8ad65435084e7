import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateCrdsWith, type CrdOutcome, type FrontEnd } from '../../helpers/crd-front-ends.ts';

/**
 * Issue 37 item 3: the syntax front end reads string enums (`enum`, `const enum`) and `as const`
 * objects used as types (`export type P = (typeof P)[keyof typeof P]`), and writes the checker
 * walk's bytes (the checker walk is the oracle). What it does not read it declines, and auto mode
 * then writes the checker walk's output.
 */

const work = mkdtempSync(join(tmpdir(), 'op-gen-syntax-enums-'));
after(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
/** A project with one version folder holding `files` (name → text) beside groupversion.ts. */
function project(files: Record<string, string>): string {
  const dir = join(work, `p${n++}`);
  const api = join(dir, 'src/api/x/v1');
  mkdirSync(api, { recursive: true });
  writeFileSync(
    join(api, 'groupversion.ts'),
    "export const groupVersion = { group: 'x.example.com', version: 'v1' } as const;\n",
  );
  for (const [name, text] of Object.entries(files)) writeFileSync(join(api, name), text);
  return dir;
}

async function generate(front: FrontEnd, dir: string): Promise<CrdOutcome> {
  const outcome = await generateCrdsWith(front, {
    cwd: dir,
    apiDir: 'src/api',
    outDir: join(dir, `out-${front}`),
  });
  // An error that is not op-gen's own is a defect, not a refusal.
  if (!outcome.ok && outcome.internal) throw new Error(outcome.error);
  return outcome;
}

async function same(dir: string): Promise<string> {
  const checker = await generate('checker', dir);
  const syntax = await generate('syntax', dir);
  assert.ok(checker.ok, `the checker's walk fails: ${checker.ok ? '' : checker.error}`);
  assert.ok(syntax.ok, `the syntax front end does not read it: ${syntax.ok ? '' : syntax.error}`);
  assert.deepEqual(syntax.files, checker.files);
  return Object.values(checker.files).join('');
}

async function declines(dir: string, reason: RegExp): Promise<void> {
  const syntax = await generate('syntax', dir);
  assert.ok(!syntax.ok, 'the syntax front end read it');
  assert.match(syntax.error, /^the syntax front end declined: /);
  assert.match(syntax.error, reason);
  assert.deepEqual(await generate('auto', dir), await generate('checker', dir));
}

const kind = (spec: string, imports = ''): string =>
  `${imports}import type { ObjectMeta } from 'op-gen';\n/** @kind */\nexport interface Thing {\n  apiVersion: string;\n  kind: string;\n  metadata: ObjectMeta;\n  spec: {\n${spec}  };\n}\n`;

const CONST_FIELDS =
  "    /**\n     * The policy.\n     * @default \"Forbid\"\n     */\n    policy?: Policy;\n    policies: Policy[];\n    maybe?: Policy | null;\n    byName: Record<string, Policy>;\n    /** The same values before one another as in the constant. */\n    other: 'Replace' | 'Allow' | 'Forbid' | 'Extra';\n";

/** As CONST_FIELDS, with a union whose values precede one another otherwise (enums are apart from it). */
const FIELDS =
  "    /**\n     * The policy.\n     * @default \"Forbid\"\n     */\n    policy?: Policy;\n    policies: Policy[];\n    maybe?: Policy | null;\n    byName: Record<string, Policy>;\n    /** Written before the enum's values elsewhere. */\n    other: 'Forbid' | 'Replace';\n";

describe('syntax front end: string enums and as-const objects', () => {
  it('reads `enum` and `const enum` with string values, in the order declared', async () => {
    for (const decl of ['export enum', 'export const enum', 'enum', 'const enum']) {
      const out = await same(
        project({
          'thing.ts':
            `/**\n * Its doc and markers are not read (the checker walk reads none).\n * @maxLength 3\n */\n${decl} Policy {\n  Replace = 'Replace',\n  Allow = 'Allow',\n  'Forbid' = "Forbid",\n}\n` +
            kind(FIELDS),
        }),
      );
      assert.match(
        out,
        /policy:\n\s+default: Forbid\n\s+description: The policy\.\n\s+enum:\n\s+- Replace\n\s+- Allow\n\s+- Forbid\n/,
      );
    }
  });

  it('reads a one-member enum and an enum imported from another file', async () => {
    await same(
      project({ 'thing.ts': "export enum Policy { Only = 'only' }\n" + kind('    policy: Policy;\n') }),
    );
    await same(
      project({
        'policy.ts': "export const enum Policy { B = 'b', A = 'a' }\n",
        'thing.ts': kind(
          '    policy: Policy;\n    list?: Policy[];\n',
          "import { Policy } from './policy.ts';\n",
        ),
      }),
    );
  });

  it('reads `(typeof X)[keyof typeof X]` of an `as const` object, parenthesized or not', async () => {
    for (const alias of ['(typeof Policy)[keyof typeof Policy]', 'typeof Policy[keyof typeof Policy]']) {
      const out = await same(
        project({
          'thing.ts':
            "export const Policy = { Replace: 'Replace', Allow: 'Allow', Forbid: 'Forbid' } as const;\n" +
            `/**\n * Not read: the symbol's first declaration is the constant.\n * @maxLength 3\n */\nexport type Policy = ${alias};\n` +
            kind(CONST_FIELDS),
        }),
      );
      assert.match(out, /enum:\n\s+- Replace\n\s+- Allow\n\s+- Forbid\n/);
      assert.doesNotMatch(out, /maxLength/);
    }
  });

  it('applies the alias doc when the alias comes first, and reads keys unlike values and imports', async () => {
    const first = await same(
      project({
        'thing.ts':
          "/**\n * The alias doc.\n * @maxLength 7\n */\nexport type Policy = (typeof Policy)[keyof typeof Policy];\nexport const Policy = { Allow: 'allow', Forbid: 'forbid' } as const;\n" +
          kind(
            '    /**\n     * @default "forbid"\n     */\n    policy?: Policy;\n    policies: Policy[];\n    maybe?: Policy | null;\n',
          ),
      }),
    );
    assert.match(first, /maxLength: 7/);
    await same(
      project({
        'policy.ts':
          "export const Mode = { Fast: 'fast', Slow: 'slow' } as const;\nexport type Mode = (typeof Mode)[keyof typeof Mode];\n",
        'thing.ts': kind(
          '    mode: Mode;\n    modes?: Mode[] | null;\n',
          "import { Mode } from './policy.ts';\n",
        ),
      }),
    );
  });

  it('declines the forms it does not read; auto mode writes the checker walk output', async () => {
    const cases: [string, RegExp][] = [
      ['export enum Policy { A = 1, B = 2 }\n', /an enum member whose value is not a string literal/],
      ['export enum Policy { A, B }\n', /an enum member without a string value/],
      ["export enum Policy { A = 'x', B = 'x' }\n", /the enum value 'x' given twice/],
      [
        "export const Policy = { A: 'a', B: 1 } as const;\nexport type Policy = (typeof Policy)[keyof typeof Policy];\n",
        /a value of Policy is not a string/,
      ],
      [
        "export const Policy = { A: 'a', B: 'b' };\nexport type Policy = (typeof Policy)[keyof typeof Policy];\n",
        /Policy is not a non-empty `as const` object/,
      ],
      [
        "export const Policy = { A: 'a' } as const;\nexport const Other = { A: 'a' } as const;\nexport type Policy = (typeof Policy)[keyof typeof Other];\n",
        /an indexed access other than/,
      ],
      [
        "export const Policy = { A: 'a' } as const;\nexport type Policy = typeof Policy;\n",
        /the type `typeof`/,
      ],
    ];
    // A union holding the constant's values in another order: the checker's enum order would differ.
    await declines(
      project({
        'thing.ts':
          "export const Policy = { Replace: 'Replace', Forbid: 'Forbid' } as const;\nexport type Policy = (typeof Policy)[keyof typeof Policy];\n" +
          kind("    policy: Policy;\n    other: 'Forbid' | 'Replace';\n"),
      }),
      /the literal '(Forbid|Replace)' after different values in two places/,
    );
    for (const [decl, reason] of cases)
      await declines(project({ 'thing.ts': decl + kind('    policy: Policy;\n') }), reason);
    // A member of an enum written as a type.
    await declines(
      project({ 'thing.ts': "export enum Policy { A = 'a', B = 'b' }\n" + kind('    one: Policy.A;\n') }),
      /the character `\.`/,
    );
  });
});
