import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/client/api-error.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

/** An error in a log line keeps what an operator needs: stack, the API server's reason, the cause chain. */
describe('logger: errors', () => {
  it('writes name, message, stack, statusCode, reason, causes, code and the cause chain', () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => void lines.push(l) });
    const socket = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const api = new ApiError(422, 'PATCH', '/apis/apps/v1/namespaces/ns/deployments/d', {
      reason: 'Invalid',
      message: 'bad',
      details: { causes: [{ field: 'spec.replicas', message: 'must be >= 0' }] },
    });
    const wrapped = new Error('applying the Deployment', { cause: api });
    log.error('reconcile failed', { error: wrapped, err: socket });
    const entry = JSON.parse(lines[0]!) as {
      error: { message: string; stack: string; cause: Record<string, unknown> };
      err: { code: string };
    };
    assert.equal(entry.error.message, 'applying the Deployment');
    assert.match(entry.error.stack, /logger\.test\.ts/);
    assert.equal(entry.error.cause.name, 'ApiError');
    assert.equal(entry.error.cause.statusCode, 422);
    assert.equal(entry.error.cause.reason, 'Invalid');
    assert.deepEqual(entry.error.cause.causes, [{ field: 'spec.replicas', message: 'must be >= 0' }]);
    assert.equal(entry.err.code, 'ECONNREFUSED');
  });
});
