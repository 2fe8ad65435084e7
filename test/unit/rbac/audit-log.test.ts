import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { auditLog } from '../../integration/rbac/audit-log.ts';

const USER = 'system:serviceaccount:ops:manager';

const event = (code: number, resource: string, user = USER): string =>
  `${JSON.stringify({
    stage: 'ResponseComplete',
    verb: 'patch',
    user: { username: user },
    objectRef: { resource },
    responseStatus: { code },
  })}\n`;

/** The RBAC integration tests' "zero 403s" rests on this reader of kube-apiserver's audit log. */
describe('integration/rbac/audit-log.ts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-audit-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const audit = auditLog(dir, USER);
  const log = join(dir, 'audit.log');

  it('a missing log fails: with auditing off, "no 403" would prove nothing', () => {
    const mark = audit.mark();
    assert.equal(mark, 0);
    assert.throws(() => audit.forbiddenSince(mark), /wrote no audit log/);
  });

  it("a log with none of the user's requests since the mark fails", () => {
    appendFileSync(log, event(200, 'pods', 'someone-else'));
    assert.throws(() => audit.forbiddenSince(0), /records no request of system:serviceaccount:ops:manager/);
  });

  it("lists the user's 403s since the mark, and nothing before it", () => {
    appendFileSync(log, event(403, 'services'));
    const mark = audit.mark();
    appendFileSync(log, event(200, 'deployments'));
    assert.deepEqual(audit.forbiddenSince(mark), []);
    appendFileSync(log, event(403, 'configmaps') + event(403, 'secrets', 'someone-else'));
    assert.deepEqual(audit.forbiddenSince(mark), ['patch configmaps']);
    assert.deepEqual(audit.forbiddenSince(0), ['patch services', 'patch configmaps']);
  });
});
