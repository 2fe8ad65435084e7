import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { OpGenError } from '../../../src/errors.ts';
import { planRbac } from '../../../src/generate/rbac/generate-rbac.ts';
import { compareStrings, normalizeRules, rolesFromRules } from '../../../src/generate/rbac/merge-rules.ts';
import type { RbacRule } from '../../../src/generate/rbac/rule.ts';

/**
 * Cases that kill the mutants of RBAC inference and merging that the other rbac tests let survive
 * (`npm run test:mutation -- rbac`; reports/mutation/rbac.json).
 */
const origin = { file: 'controller.ts', line: 1, source: '@rbac' };
const rule = (fields: Partial<RbacRule>): RbacRule => ({
  groups: [],
  resources: [],
  resourceNames: [],
  urls: [],
  verbs: [],
  origin,
  ...fields,
});

describe('RBAC rule merging', () => {
  it('compares bytewise: -1, 1 or 0', () => {
    assert.equal(compareStrings('a', 'b'), -1);
    assert.equal(compareStrings('b', 'a'), 1);
    assert.equal(compareStrings('a', 'a'), 0);
    assert.equal(compareStrings('B', 'a'), -1);
  });

  it('keeps a URL rule without apiGroups, merges `core` with "" and keeps resourceNames', () => {
    assert.deepEqual(
      normalizeRules([
        rule({ urls: ['/metrics', '/healthz'], verbs: ['get'] }),
        rule({ groups: ['core'], resources: ['pods'], resourceNames: ['b', 'a'], verbs: ['get'] }),
        rule({ groups: [''], resources: ['pods'], resourceNames: ['a', 'b'], verbs: ['list'] }),
      ]),
      [
        { verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics'] },
        { verbs: ['get', 'list'], apiGroups: [''], resourceNames: ['a', 'b'], resources: ['pods'] },
      ],
    );
  });

  it('orders roles by namespace, then name; the ClusterRoles (no namespace) first', () => {
    const deployments = { groups: ['apps'], resources: ['deployments'], verbs: ['get'] };
    const roles = rolesFromRules(
      [
        rule({ ...deployments, namespace: 'b', roleName: 'z' }),
        rule({ ...deployments, namespace: 'a', roleName: 'y' }),
        rule({ ...deployments, namespace: 'a', roleName: 'x' }),
        rule({ ...deployments, roleName: 'w' }),
      ],
      'manager-role',
    );
    assert.deepEqual(
      roles.map((r) => [r.namespace, r.name, r.rules.length]),
      [
        [undefined, 'manager-role', 0],
        [undefined, 'w', 1],
        ['a', 'x', 1],
        ['a', 'y', 1],
        ['b', 'z', 1],
      ],
    );
    assert.equal(Object.hasOwn(roles[0]!, 'namespace'), false);
  });

  it('writes apiGroups on a rule with groups or resources, and only there', () => {
    assert.deepEqual(
      normalizeRules([
        rule({ groups: ['apps'], verbs: ['get'] }),
        rule({ resources: ['widgets'], verbs: ['list'] }),
      ]),
      [
        { verbs: ['list'], apiGroups: [], resources: ['widgets'] },
        { verbs: ['get'], apiGroups: ['apps'] },
      ],
    );
  });
});

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A throwaway project with src/main.ts (and the Widget kind in src/api/widget.ts). */
function project(main: string): string {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-rbac-mutants-'));
  dirs.push(root);
  const files: Record<string, string> = {
    'src/api/widget.ts': `import { defineKind } from 'op-gen/runtime';
export const Widget = defineKind({ group: 'toys.example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
`,
    'src/main.ts': main,
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** The resources of the inferred ClusterRole's rules, `group/resource`, sorted. */
function inferred(main: string): string[] {
  const rules = planRbac({ cwd: project(main) }).roles[0]?.rules ?? [];
  return rules.flatMap((r) => (r.resources ?? []).map((res) => `${r.apiGroups?.[0] ?? ''}/${res}`)).sort();
}

const WIDGET = [
  '/events',
  'toys.example.com/widgets',
  'toys.example.com/widgets/finalizers',
  'toys.example.com/widgets/status',
];

function refused(main: string): string {
  let message = '';
  assert.throws(
    () => planRbac({ cwd: project(main) }),
    (err: unknown) => {
      assert.ok(err instanceof OpGenError, `an OpGenError, not ${String(err)}`);
      message = err.message;
      return true;
    },
  );
  return message;
}

describe('RBAC inference: which chains are controller builders', () => {
  it('follows a builder through 16 consts, and a cycle of consts ends as "not a builder"', () => {
    const consts = Array.from({ length: 15 }, (_, i) => `  const c${i + 1} = c${i};`).join('\n');
    assert.deepEqual(
      inferred(`import { Widget } from './api/widget.ts';
export function setup(mgr) {
  const c0 = mgr.controller('w');
${consts}
  c15.for(Widget);
}
`),
      WIDGET,
    );
    assert.deepEqual(
      inferred(`import { Widget } from './api/widget.ts';
// @ts-nocheck
export function setup() {
  const a = b;
  const b = a;
  a.for(Widget);
}
`),
      [],
    );
  });

  it('reads through parentheses and await', () => {
    assert.deepEqual(
      inferred(`import { builtinKinds } from 'op-gen/runtime';
import { Widget } from './api/widget.ts';
export async function setup(mgr) {
  (mgr.controller('w')).for(Widget);
  (await mgr.controller('v')).owns(builtinKinds.Secret);
}
`),
      [...WIDGET, '/secrets'].sort(),
    );
  });

  it('a chain not started by .controller(), a parameter and an undeclared name are not builders', () => {
    assert.deepEqual(
      inferred(`import { Widget } from './api/widget.ts';
export function setup(mgr, b) {
  mgr.builder('w').for(Widget);
  b.for(Widget);
  // @ts-ignore
  undeclared.owns(Widget);
}
`),
      [],
    );
  });
});

describe('RBAC inference: reading the kind', () => {
  it('.for() without a kind says so, with the way to declare one', () => {
    assert.match(
      refused(`export const setup = (mgr) => mgr.controller('w').for();\n`),
      /^src\/main\.ts:1: \.for\(\) needs a kind\. Pass a kind declared as `defineKind<T>/,
    );
  });

  it('null, a number group and a missing group or plural are refused as kinds', () => {
    for (const arg of [
      'null',
      "{ group: 42, plural: 'widgets' }",
      "{ group: 'toys.example.com' }",
      "{ plural: 'widgets' }",
    ]) {
      assert.match(
        refused(`export const setup = (mgr) => mgr.controller('w').for(${arg});\n`),
        new RegExp(
          `^src/main\\.ts:1: the kind passed to \\.for\\(${arg.replace(/[(){}.]/g, '\\$&')}\\) has no literal \`group\` and \`plural\``,
        ),
        arg,
      );
    }
  });

  it('a kind not static in the same file names no other place', () => {
    const message = refused(`export function setup(mgr, kinds) {
  mgr.controller('w').for(kinds.Widget);
}
`);
    assert.match(
      message,
      /^src\/main\.ts:2: cannot read the kind passed to \.for\(kinds\.Widget\): `kinds` is not a const with an initializer in the scanned sources\. Pass a kind declared as /,
    );
  });

  it('an inferred rule that fails validation names the builder call it came from', () => {
    assert.match(
      refused(`import { defineKind } from 'op-gen/runtime';
const Bad = defineKind({ group: 'toys.example.com', version: 'v1', kind: 'Bad', plural: 'Bads', namespaced: true });
export const setup = (mgr) => mgr.controller('w').owns(Bad);
`),
      /^src\/main\.ts:3: \.owns\(Bad\): resource `Bads` has uppercase letters/,
    );
  });
});

describe('RBAC inference: the parent of a dependent cleaned up in order', () => {
  const head = `import { builtinKinds, defineKind, dependent } from 'op-gen/runtime';
import { Widget } from './api/widget.ts';
const d = dependent(builtinKinds.Service, { desired: () => ({}), cleanup: 'ordered' });
`;
  /** The verbs of the rules on widgets (the parent's own resource). */
  const widgetVerbs = (setup: string): string[] => {
    const rules = planRbac({ cwd: project(head + setup) }).roles[0]?.rules ?? [];
    return rules.filter((r) => r.resources?.includes('widgets')).flatMap((r) => r.verbs);
  };

  it("finds the chain's .for(kind) through parentheses, await, 16 consts and other builder calls", () => {
    const consts = Array.from({ length: 15 }, (_, i) => `  const c${i + 1} = c${i};`).join('\n');
    assert.deepEqual(
      widgetVerbs(`export async function setup(mgr) {
  const c0 = mgr.controller('w').for(Widget).owns(builtinKinds.Secret);
${consts}
  (await c15).dependents([d]).complete();
}
`),
      ['get', 'list', 'update', 'watch'],
    );
  });

  it('a chain without .for(kind) before .controller() is refused with what to declare', () => {
    const expected =
      'src/main.ts:7: a dependent is cleaned up in order (src/main.ts:3), so the parent needs `update` on its own kind (the finalizer), ' +
      'but the chain has no `.for(kind)` to read it from. Declare it with an @rbac marker (verbs=update on the parent kind).';
    assert.equal(
      refused(`${head}export function setup(registry) {
  // a .for() before the manager's .controller() is not the controller's
  const base = registry.for(Widget);
  base.controller('w').dependents([d]).complete();
}
`),
      expected,
    );
  });

  it('the parent rule is reported at the dependent, the .for kind unreadable at the chain', () => {
    const bad =
      refused(`${head}const Bad = defineKind({ group: 'toys.example.com', version: 'v1', kind: 'Bad', plural: 'Bads', namespaced: true });
export const setup = (mgr) => mgr.controller('w').for(Bad).dependents([d]).complete();
`);
    assert.match(bad, /^src\/main\.ts:3: \.dependents\(\[\.\.\.\]\): resource `Bads` has uppercase letters/);
    assert.match(
      refused(
        `${head}export const setup = (mgr, k) => mgr.controller('w').for(k.Widget).dependents([d]).complete();\n`,
      ),
      /^src\/main\.ts:4: cannot read the kind passed to \.for\(k\.Widget\): /,
    );
  });
});
