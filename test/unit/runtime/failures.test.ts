import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/client/api-error.ts';
import { defineKind } from '../../../src/client/kind.ts';
import type { EventType } from '../../../src/runtime/events.ts';
import {
  actionRequired,
  ownershipConflict,
  reportFailure,
  type WithConditions,
} from '../../../src/runtime/failures.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import type { ReconcileClient } from '../../../src/runtime/reconcile-client.ts';

const App = defineKind<WithConditions>({
  group: 'test.op-gen.dev',
  version: 'v1',
  kind: 'App',
  plural: 'apps',
  namespaced: true,
});

const owner = {
  apiVersion: 'test.op-gen.dev/v1',
  kind: 'App',
  metadata: { name: 'a', namespace: 'ns', uid: 'uid-a', generation: 4, resourceVersion: '7' },
};

describe('actionRequired', () => {
  it('reports 422 with the server message (the field at fault) and the reason', () => {
    const err = new ApiError(422, 'PATCH', '/apis/apps/v1/namespaces/ns/deployments/a', {
      reason: 'Invalid',
      message:
        'Deployment.apps "a" is invalid: spec.selector: Invalid value: {"matchLabels":{"x":"y"}}: field is immutable',
      details: { causes: [{ field: 'spec.selector', message: 'field is immutable' }] },
    });
    const failure = actionRequired(err);
    assert.equal(failure?.reason, 'Invalid');
    assert.match(
      failure?.message ?? '',
      /^Deployment\.apps "a" is invalid: spec\.selector: .*field is immutable$/,
    );
  });

  it('reports 403 (RBAC) and 400, not outages or conflicts', () => {
    assert.equal(
      actionRequired(new ApiError(403, 'PATCH', '/x', { message: 'forbidden' }))?.reason,
      'Forbidden',
    );
    assert.equal(actionRequired(new ApiError(400, 'PATCH', '/x', { message: 'bad' }))?.reason, 'BadRequest');
    assert.equal(actionRequired(new ApiError(409, 'PUT', '/x', { reason: 'Conflict' })), undefined);
    assert.equal(actionRequired(new ApiError(503, 'GET', '/x', {})), undefined);
    assert.equal(actionRequired(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })), undefined);
  });
});

describe('ownershipConflict', () => {
  const child = (ownerReferences?: unknown[]) => ({
    metadata: { name: 'a', namespace: 'ns', ...(ownerReferences ? { ownerReferences } : {}) },
  });

  it('allows a missing object and one controlled by the owner', () => {
    assert.equal(ownershipConflict(undefined, owner), undefined);
    assert.equal(
      ownershipConflict(child([{ kind: 'App', name: 'a', uid: 'uid-a', controller: true }]), owner),
      undefined,
    );
  });

  it('refuses an object controlled by someone else, even with adoptOrphans', () => {
    const other = child([{ kind: 'ReplicaSet', name: 'rs', uid: 'uid-rs', controller: true }]);
    const message = ownershipConflict(other, owner, { adoptOrphans: true, kind: 'Deployment' });
    assert.match(message ?? '', /^Deployment ns\/a exists and is controlled by ReplicaSet rs/);
  });

  it('refuses an object without a controller reference unless adoptOrphans', () => {
    const orphan = child([{ kind: 'App', name: 'a', uid: 'uid-a', controller: false }]);
    assert.match(
      ownershipConflict(orphan, owner, { kind: 'Deployment' }) ?? '',
      /not created by this App \(no controller reference\)/,
    );
    assert.equal(ownershipConflict(orphan, owner, { adoptOrphans: true }), undefined);
  });
});

describe('reportFailure', () => {
  function fakeCtx() {
    const writes: WithConditions[] = [];
    const events: { type: EventType; reason: string; message: string }[] = [];
    const ctx = {
      client: {
        status: () => ({
          update: async (_kind: unknown, obj: WithConditions) => {
            writes.push(obj);
            return obj;
          },
        }),
      } as unknown as ReconcileClient,
      recorder: {
        event: (_o: unknown, type: EventType, reason: string, message: string) =>
          events.push({ type, reason, message }),
      },
      log: createLogger({ level: 'error', write: () => {} }),
    };
    return { ctx, writes, events };
  }

  it('sets Ready=False with reason, message and observedGeneration, and records a Warning event', async () => {
    const { ctx, writes, events } = fakeCtx();
    await reportFailure(ctx, App, owner, { reason: 'DeploymentNotOwned', message: 'not ours' });
    assert.equal(writes.length, 1);
    const ready = writes[0]?.status?.conditions?.[0];
    assert.deepEqual(
      { ...ready, lastTransitionTime: undefined },
      {
        type: 'Ready',
        status: 'False',
        observedGeneration: 4,
        reason: 'DeploymentNotOwned',
        message: 'not ours',
        lastTransitionTime: undefined,
      },
    );
    assert.equal(writes[0]?.metadata?.resourceVersion, '7', 'a status update carries the resourceVersion');
    assert.deepEqual(events, [{ type: 'Warning', reason: 'DeploymentNotOwned', message: 'not ours' }]);
  });

  it('skips the status write when the condition already says so, but still records the event', async () => {
    const { ctx, writes, events } = fakeCtx();
    const reported = {
      ...owner,
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'False' as const,
            observedGeneration: 4,
            reason: 'DeploymentNotOwned',
            message: 'not ours',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    };
    await reportFailure(ctx, App, reported, { reason: 'DeploymentNotOwned', message: 'not ours' });
    assert.equal(writes.length, 0);
    assert.equal(events.length, 1);
  });
});
