import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { OpGenError } from '../../../src/errors.ts';
import { planRbac } from '../../../src/generate/rbac/generate-rbac.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A throwaway project with the given source files. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-rbac-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const KIND = `import { defineKind } from 'op-gen/runtime';
export const Widget = defineKind({ group: 'toys.example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
`;

function clusterRules(root: string, options: { infer?: boolean } = {}) {
  return planRbac({ cwd: root, ...options }).roles[0]?.rules;
}

function throwsAt(root: string, message: RegExp): void {
  assert.throws(
    () => planRbac({ cwd: root }),
    (err: unknown) => {
      assert.ok(err instanceof OpGenError, String(err));
      assert.match(err.message, message);
      return true;
    },
  );
}

describe('RBAC inference from controller builders', () => {
  it('infers read access for for/owns/watches, status, finalizers and events', () => {
    const root = project({
      'src/api/widget.ts': KIND,
      'src/main.ts': `import { builtinKinds } from 'op-gen/runtime';
import { Widget } from './api/widget.ts';
export function setup(mgr) {
  mgr.controller('widget').for(Widget).owns(builtinKinds.Secret).watches(builtinKinds.Node, () => []).complete({});
}
`,
    });
    assert.deepEqual(clusterRules(root), [
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [''], resources: ['nodes', 'secrets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['toys.example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['toys.example.com'], resources: ['widgets/finalizers'], verbs: ['update'] },
      { apiGroups: ['toys.example.com'], resources: ['widgets/status'], verbs: ['get', 'patch', 'update'] },
    ]);
    assert.deepEqual(clusterRules(root, { infer: false }), []);
  });

  it('ignores for/owns/watches calls that are not on a controller builder', () => {
    const root = project({
      'src/main.ts': `const list = { for: (x) => x, owns: (x) => x };
list.for(42); list.owns(someVariable);
`,
    });
    assert.deepEqual(clusterRules(root), []);
  });

  it('reads kinds declared inline, through consts, spreads and template literals', () => {
    const root = project({
      'src/gv.ts': `export const gv = { group: 'toys.example.com', version: 'v1' } as const;`,
      'src/main.ts': `import { defineKind } from 'op-gen/runtime';
import { gv } from './gv.ts';
const suffix = 's';
const Gadget = defineKind({ ...gv, kind: 'Gadget', plural: \`gadget\${suffix}\`, namespaced: true });
export function setup(mgr) {
  const b = mgr.controller('gadget');
  b.for(Gadget);
  b.owns(defineKind({ group: gv.group, version: 'v1', kind: 'Part', plural: 'parts', namespaced: true }));
}
`,
    });
    const rules = clusterRules(root) ?? [];
    assert.deepEqual(
      rules.find((r) => r.verbs.join() === 'get,list,watch'),
      { apiGroups: ['toys.example.com'], resources: ['gadgets', 'parts'], verbs: ['get', 'list', 'watch'] },
    );
  });

  it('fails with file:line when a kind cannot be read statically', () => {
    const root = project({
      'src/controllers/widget.ts': `import { loadKind } from './kinds.ts';
export function setup(mgr) {
  mgr
    .controller('widget')
    .for(loadKind('Widget'));
}
`,
    });
    throwsAt(
      root,
      /^src\/controllers\/widget\.ts:5: cannot read the kind passed to \.for\(loadKind\('Widget'\)\): .*--no-infer/,
    );
  });

  it('fails with the file:line of the declaration that is not static', () => {
    const root = project({
      'src/api/widget.ts': `import { defineKind } from 'op-gen/runtime';
let plural = 'widgets';
export const Widget = defineKind({ group: 'toys.example.com', version: 'v1', kind: 'Widget', plural, namespaced: true });
`,
      'src/main.ts': `import { Widget } from './api/widget.ts';
export const setup = (mgr) => mgr.controller('w').for(Widget);
`,
    });
    throwsAt(
      root,
      /^src\/main\.ts:2: cannot read the kind passed to \.for\(Widget\): `plural` is not a const \(at src\/api\/widget\.ts:3\)/,
    );
  });

  it('fails when the kind has no group or plural', () => {
    const root = project({
      'src/main.ts': `import { defineKind } from 'op-gen/runtime';
const K = defineKind({ kind: 'K', version: 'v1' });
export const setup = (mgr) => mgr.controller('k').for(K);
`,
    });
    throwsAt(root, /^src\/main\.ts:3: the kind passed to \.for\(K\) has no literal `group` and `plural`/);
  });

  it('reports bad markers with file:line and leaves tests out of the scan', () => {
    const root = project({
      'src/main.ts': `/**
 * @rbac groups=apps resources=Deployments verbs=get
 */
export class R {}
`,
      'src/main.test.ts': `/** @rbac groups=apps resources=deployments verbs=*  */`,
    });
    throwsAt(root, /^src\/main\.ts:2: @rbac: resource `Deployments` has uppercase letters/);
  });
});
