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

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-rbac-deps-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const KIND = `import { defineKind } from 'op-gen/runtime';
export const App = defineKind({ group: 'apps.example.com', version: 'v1', kind: 'App', plural: 'apps', namespaced: true });
export const Db = defineKind({ group: 'db.example.com', version: 'v1', kind: 'Database', plural: 'databases', namespaced: true });
`;

const rulesOf = (root: string) => planRbac({ cwd: root }).roles[0]?.rules;

const PARENT = [
  { apiGroups: ['apps.example.com'], resources: ['apps'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['apps.example.com'], resources: ['apps/finalizers'], verbs: ['update'] },
  { apiGroups: ['apps.example.com'], resources: ['apps/status'], verbs: ['get', 'patch', 'update'] },
];
const EVENTS = { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] };
const WRITE = ['create', 'delete', 'get', 'list', 'patch', 'watch'];

function throwsWith(root: string, ...messages: RegExp[]): string {
  let text = '';
  assert.throws(
    () => planRbac({ cwd: root }),
    (err: unknown) => {
      assert.ok(err instanceof OpGenError, String(err));
      for (const m of messages) assert.match(err.message, m);
      text = err.message;
      return true;
    },
  );
  return text;
}

describe('RBAC inference from .dependents([...])', () => {
  it('gives written dependents apply/delete verbs, read-only ones reads; GC cleanup needs no parent update', () => {
    const root = project({
      'src/api/app.ts': KIND,
      'src/deps.ts': `import { builtinKinds, dependent, dependents, readOnlyDependent as ro, externalDependent } from 'op-gen/runtime';
import { Db } from './api/app.ts';
export const config = dependent(builtinKinds.ConfigMap, { name: 'config', desired: (a) => ({ metadata: { name: 'x' } }) });
export const web = dependent(builtinKinds.Deployment, { desired: (a) => ({ metadata: { name: 'x' } }), cleanup: 'garbage-collection' });
const shards = dependents(Db, { desiredSet: () => new Map() });
export const secret = ro(builtinKinds.Secret, { key: (a) => ({ name: 'creds' }) });
export const dns = externalDependent({ name: 'dns', reconcile: async () => true });
export const all = [config, shards];
`,
      'src/main.ts': `import { App } from './api/app.ts';
import { config, web, secret, dns, all } from './deps.ts';
export function setup(mgr) {
  mgr.controller('app').for(App).dependents([...all, secret, web.dependsOn(config, secret), dns]).complete();
}
`,
    });
    assert.deepEqual(rulesOf(root), [
      { apiGroups: [''], resources: ['configmaps'], verbs: WRITE },
      EVENTS,
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: WRITE },
      ...PARENT,
      { apiGroups: ['db.example.com'], resources: ['databases'], verbs: WRITE },
    ]);
  });

  it("adds update on the parent's kind for ordered cleanup and an external dependent with delete", () => {
    const ordered = (decl: string) =>
      project({
        'src/api/app.ts': KIND,
        'src/main.ts': `import { builtinKinds, dependent, externalDependent } from 'op-gen/runtime';
import { App } from './api/app.ts';
const d = ${decl};
export function setup(mgr) {
  const c = mgr.controller('app').for(App);
  c.dependents([d]).complete();
}
`,
      });
    const withUpdate = (root: string) =>
      rulesOf(root)?.find((r) => r.resources?.[0] === 'apps' && r.verbs.includes('update'));
    assert.deepEqual(
      withUpdate(ordered(`dependent(builtinKinds.Service, { desired: () => ({}), cleanup: 'ordered' })`))
        ?.verbs,
      ['get', 'list', 'update', 'watch'],
    );
    assert.ok(
      withUpdate(ordered(`externalDependent({ name: 'x', reconcile: async () => true, async delete() {} })`)),
    );
    assert.equal(
      withUpdate(ordered(`externalDependent({ name: 'x', reconcile: async () => true })`)),
      undefined,
    );
    assert.equal(withUpdate(ordered(`dependent(builtinKinds.Service, { desired: () => ({}) })`)), undefined);
  });

  it('reports every dependent it cannot read, with file:line and what to declare, in one run', () => {
    const root = project({
      'src/api/app.ts': KIND,
      'src/main.ts': `import { builtinKinds, dependent } from 'op-gen/runtime';
import { App } from './api/app.ts';
function makeDep(kind) {
  return dependent(kind, { desired: () => ({}) });
}
let mutable = dependent(builtinKinds.Secret, { desired: () => ({}) });
const mode = process.env.MODE;
const odd = dependent(builtinKinds.Service, { desired: () => ({}), cleanup: mode });
export function setup(mgr) {
  mgr.controller('app').for(App).dependents([
    makeDep(builtinKinds.Pod),
    mutable,
    odd,
    dependent(builtinKinds.ConfigMap, { desired: () => ({}) }),
  ]).complete();
}
`,
    });
    const text = throwsWith(
      root,
      /src\/main\.ts:11: `makeDep\(builtinKinds\.Pod\)` is not a dependent declaration/,
      /src\/main\.ts:12: `mutable` is not a const/,
      /src\/main\.ts:8: its `cleanup` option is not a literal/,
      /verbs=get;list;watch;create;patch;delete/,
      /3 problems/,
    );
    assert.doesNotMatch(text, /configmaps/);
  });

  it('reports a kind read from a parameter at its place', () => {
    const root = project({
      'src/api/app.ts': KIND,
      'src/main.ts': `import { builtinKinds, dependent } from 'op-gen/runtime';
import { App } from './api/app.ts';
export function setup(mgr, kind) {
  const d = dependent(kind, { desired: () => ({}) });
  mgr.controller('app').for(App).dependents([d]).complete();
}
`,
    });
    throwsWith(root, /src\/main\.ts:4: cannot read the kind passed to dependent\(kind\)/, /@rbac marker/);
  });
});
