import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The API server's own record of the requests a user made: kube-apiserver writes an audit event per
 * request of `user` (JSON lines), so a test can count the 403s the server sent, independently of the
 * client's count.
 */
export interface AuditLog {
  /** kube-apiserver flags that turn the log on. */
  readonly flags: readonly string[];
  /** Marks the current end of the log; `forbiddenSince` counts from there. */
  mark(): number;
  /**
   * `<verb> <resource>[/<subresource>]` of each request answered 403 since `mark`. Throws when the log
   * is missing or holds no request of `user` since `mark`: with auditing off, "no 403" proves nothing.
   */
  forbiddenSince(mark: number): string[];
}

interface AuditEvent {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string };
  requestURI?: string;
  responseStatus?: { code?: number };
}

export function auditLog(dir: string, user: string): AuditLog {
  const policy = join(dir, 'audit-policy.yaml');
  const path = join(dir, 'audit.log');
  writeFileSync(
    policy,
    [
      'apiVersion: audit.k8s.io/v1',
      'kind: Policy',
      'omitStages: [RequestReceived]',
      'rules:',
      '  - level: Metadata',
      `    users: [${JSON.stringify(user)}]`,
      '  - level: None',
      '',
    ].join('\n'),
  );
  const read = (): string => (existsSync(path) ? readFileSync(path, 'utf8') : '');
  return {
    flags: [`--audit-policy-file=${policy}`, `--audit-log-path=${path}`, '--audit-log-mode=blocking'],
    mark: () => read().length,
    forbiddenSince(mark: number): string[] {
      if (!existsSync(path)) {
        throw new Error(`the API server wrote no audit log at ${path}: is auditing on (${policy})?`);
      }
      const events = read()
        .slice(mark)
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as AuditEvent)
        .filter((e) => e.stage === 'ResponseComplete' && e.user?.username === user);
      if (events.length === 0) {
        throw new Error(`the audit log ${path} records no request of ${user} since the mark`);
      }
      return events
        .filter((e) => e.responseStatus?.code === 403)
        .map((e) => {
          const ref = e.objectRef;
          const resource = ref?.resource
            ? `${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''}`
            : e.requestURI;
          return `${e.verb} ${resource}`;
        });
    },
  };
}
