import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const template = (path: string) =>
  readFileSync(new URL(`../../../templates/init/${path}`, import.meta.url), 'utf8');

/** The pod's grace period must cover the manager's shutdown timeout plus its release steps. */
describe('scaffolded shutdown timing', () => {
  it("the kubelet waits longer than the manager's --graceful-shutdown-timeout default", () => {
    const podGrace = Number(
      /terminationGracePeriodSeconds: (\d+)/.exec(template('config/manager/manager.yaml.hbs'))?.[1],
    );
    const timeout = Number(
      /env\.GRACEFUL_SHUTDOWN_TIMEOUT \?\? '(\d+(?:\.\d+)?)'/.exec(template('src/config.ts.hbs'))?.[1],
    );
    assert.ok(
      Number.isFinite(podGrace) && Number.isFinite(timeout),
      'both values are found in the templates',
    );
    // Lease release, event flush and server close get at least 5 s after the reconciles' deadline.
    assert.ok(podGrace >= timeout + 5, `terminationGracePeriodSeconds ${podGrace} vs timeout ${timeout} s`);
  });
});
