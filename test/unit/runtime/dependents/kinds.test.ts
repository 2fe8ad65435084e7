import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { builtinKinds } from '../../../../src/runtime/builtin-kinds.ts';
import { dependent, externalDependent } from '../../../../src/runtime/dependents/dependent.ts';
import { orderDependents } from '../../../../src/runtime/dependents/graph.ts';
import { containsDesired } from '../../../../src/runtime/dependents/match.ts';
import { defaultReady } from '../../../../src/runtime/dependents/readiness.ts';
import { conditionType } from '../../../../src/runtime/dependents/status.ts';
import { fuzzRuns } from '../../../helpers/fuzz-runs.ts';

const KIND_RUNS = fuzzRuns(300);

const cm = (name: string) =>
  dependent(builtinKinds.ConfigMap, { name, desired: () => ({ metadata: { name } }) });

describe('dependents: declarations, graph, matching and default readiness', () => {
  it('orders by dependsOn and reports every problem of a workflow at once (cycle, unknown, duplicate)', () => {
    const a = cm('a');
    const b = cm('b').dependsOn(a);
    const c = cm('c').dependsOn('b', a);
    assert.deepEqual(
      orderDependents('x', [c, b, a]).map((d) => d.name),
      ['a', 'b', 'c'],
    );
    assert.throws(
      () => orderDependents('x', [cm('a').dependsOn('c'), cm('b').dependsOn('a'), cm('c').dependsOn('b')]),
      /controller x: .*\n- a dependency cycle: a -> c -> b -> a/,
    );
    assert.throws(
      () => orderDependents('x', [cm('a'), cm('a'), cm('b').dependsOn('nope'), cm('c').dependsOn('c')]),
      (err: Error) =>
        /two dependents are named "a"/.test(err.message) &&
        /"b" depends on "nope", which is not among/.test(err.message) &&
        /"c" depends on itself/.test(err.message),
    );
  });

  it('names: a DNS label; the condition type is <Name>Ready', () => {
    assert.throws(() => cm('Bad_Name'), /a name is a DNS label/);
    assert.throws(
      () => dependent(builtinKinds.ConfigMap, { desired: () => ({}), discriminator: '-x' }),
      /label value/,
    );
    assert.equal(dependent(builtinKinds.ConfigMap, { desired: () => ({}) }).name, 'configmap');
    assert.equal(externalDependent({ name: 'db-user', reconcile: async () => true }).kind, undefined);
    assert.equal(conditionType('db-user'), 'DbUserReady');
    assert.equal(conditionType('web'), 'WebReady');
  });

  it('containsDesired: desired values must be live; server defaults and other fields are ignored', () => {
    const live = {
      metadata: { name: 'x', labels: { a: '1', extra: 'y' }, uid: 'u' },
      spec: {
        ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }, { port: 443 }],
        args: ['a', 'b'],
        template: { spec: { containers: [{ name: 'c', image: 'i', terminationMessagePath: '/dev' }] } },
      },
    };
    assert.ok(
      containsDesired(
        { metadata: { name: 'x', labels: { a: '1' } }, spec: { ports: [{ port: 443 }] } },
        live,
      ),
    );
    assert.ok(
      containsDesired({ spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } }, live),
    );
    assert.ok(containsDesired({ metadata: { annotations: {} }, spec: { x: null } }, live));
    assert.ok(!containsDesired({ metadata: { labels: { a: '2' } } }, live));
    assert.ok(!containsDesired({ spec: { args: ['a'] } }, live), 'lists of scalars compare whole');
    assert.ok(!containsDesired({ spec: { args: ['b', 'a'] } }, live), 'in order');
    assert.ok(!containsDesired({ spec: { ports: [{ port: 8080 }] } }, live));
    assert.ok(
      !containsDesired({ spec: { template: { spec: { containers: [{ name: 'c', image: 'j' }] } } } }, live),
    );
    assert.ok(!containsDesired({ data: { k: 'v' } }, live), 'a missing field');
    assert.ok(!containsDesired({ spec: { replicas: 1 } }, { spec: { replicas: '1' } }));
  });

  it('default readiness per kind', () => {
    const deploy = defaultReady(builtinKinds.Deployment);
    const d = (status: Record<string, unknown>) =>
      deploy({
        metadata: { generation: 2 },
        spec: { replicas: 3 },
        status: { observedGeneration: 2, ...status },
      } as never);
    assert.match(
      String(deploy({ metadata: { generation: 2 }, status: { observedGeneration: 1 } } as never)),
      /generation 2 not observed/,
    );
    assert.equal(d({ updatedReplicas: 2, replicas: 3, availableReplicas: 3 }), '2/3 replicas updated');
    // A rollout: every replica available, but two of the old version are still there.
    assert.equal(
      d({ updatedReplicas: 3, replicas: 5, availableReplicas: 5 }),
      '2 old replicas pending termination',
    );
    assert.equal(
      d({ updatedReplicas: 3, replicas: 3, availableReplicas: 2 }),
      '2/3 updated replicas available',
    );
    assert.equal(d({ updatedReplicas: 3, replicas: 3, availableReplicas: 3 }), true);
    assert.equal(
      d({
        updatedReplicas: 1,
        replicas: 3,
        conditions: [
          { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'x' },
        ],
      }),
      'progress deadline exceeded: x',
    );
    const sts = defaultReady(builtinKinds.StatefulSet);
    const stsStatus = {
      observedGeneration: 1,
      readyReplicas: 2,
      currentRevision: 'r1',
      updateRevision: 'r2',
    };
    assert.equal(
      sts({ metadata: { generation: 1 }, spec: { replicas: 2 }, status: stsStatus } as never),
      'rolling out revision r2',
    );
    assert.equal(
      sts({
        metadata: { generation: 1 },
        spec: { replicas: 2 },
        status: { ...stsStatus, currentRevision: 'r2' },
      } as never),
      true,
    );
    const job = defaultReady(builtinKinds.Job);
    assert.equal(job({ status: { conditions: [{ type: 'Complete', status: 'True' }] } } as never), true);
    assert.equal(
      job({ status: { conditions: [{ type: 'Failed', status: 'True', message: 'backoff' }] } } as never),
      'failed: backoff',
    );
    assert.equal(job({} as never), 'not complete');
    const svc = defaultReady(builtinKinds.Service);
    assert.equal(svc({ spec: { type: 'ClusterIP' } } as never), true);
    assert.equal(svc({ spec: { type: 'LoadBalancer' } } as never), 'no load balancer ingress assigned');
    assert.equal(
      svc({
        spec: { type: 'LoadBalancer' },
        status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      } as never),
      true,
    );
    const pvc = defaultReady(builtinKinds.PersistentVolumeClaim);
    assert.equal(pvc({ status: { phase: 'Pending' } } as never), 'phase Pending, not Bound');
    assert.equal(pvc({ status: { phase: 'Bound' } } as never), true);
    assert.equal(defaultReady(builtinKinds.ConfigMap)({} as never), true);
  });

  it('containsDesired, properties (fast-check): an object holds itself and any superset; a changed leaf breaks it', () => {
    type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
    // Objects whose lists hold scalars (a list of objects matches element by element, so a changed
    // item may still find an equal sibling: that case is covered by the examples above).
    const scalar = fc.oneof(fc.boolean(), fc.integer(), fc.string(), fc.constant(null));
    const { tree } = fc.letrec<{ tree: Json }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small' },
        scalar,
        fc.array(scalar, { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 6 }), tie('tree'), { maxKeys: 5 }),
      ),
    }));
    const object = fc.dictionary(fc.string({ maxLength: 6 }), tree, { minKeys: 1, maxKeys: 6 });
    const leaves = (v: Json, path: (string | number)[] = []): (string | number)[][] => {
      if (v === null) return [];
      if (Array.isArray(v)) return v.flatMap((x, i) => leaves(x, [...path, i]));
      if (typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k]));
      return [path];
    };
    const changed = (v: Json): Json =>
      typeof v === 'string' ? `${v}~` : typeof v === 'number' ? v + 1 : typeof v === 'boolean' ? !v : v;
    let runs = 0;
    let mutated = 0;
    fc.assert(
      fc.property(object, fc.string({ maxLength: 4 }), fc.nat(), (desired, extraKey, pick) => {
        runs++;
        assert.ok(containsDesired(desired, structuredClone(desired)));
        const superset = { ...structuredClone(desired), [`extra-${extraKey}`]: { added: true } };
        assert.ok(containsDesired(desired, superset), 'fields only in the live object are ignored');
        const paths = leaves(desired);
        if (paths.length === 0) return;
        const path = paths[pick % paths.length]!;
        const live = structuredClone(desired) as Json;
        let at = live as Record<string | number, Json>;
        for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, Json>;
        const last = path.at(-1)!;
        at[last] = changed(at[last]!);
        mutated++;
        assert.ok(!containsDesired(desired, live), `changed at ${path.join('.')}`);
      }),
      { numRuns: KIND_RUNS },
    );
    assert.equal(runs, KIND_RUNS);
    assert.ok(mutated > runs / 2, `a leaf changed in ${mutated} of ${runs} runs`);
  });
});
