import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readWebhookMarkers } from '../../../src/generate/webhook/source-markers.ts';
import { ProblemsError } from '../../../src/shared/problems.ts';

describe('readWebhookMarkers', () => {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-webhook-markers-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('reports every problem at once: a Go-form +kubebuilder:webhook names the @webhook to write, a typo gets a suggestion', () => {
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(
      join(root, 'src', 'a.ts'),
      [
        '/**',
        ' * Defaults Memcached.',
        ' * +kubebuilder:webhook:path=/mutate-cache-example-com-v1-memcached,mutating=true,failurePolicy=fail,sideEffects=None,groups=cache.example.com,resources=memcacheds,verbs=create;update,versions=v1,name=mmemcached-v1.kb.io,admissionReviewVersions=v1',
        ' */',
        'export class A {}',
        '',
        '/**',
        ' * @webhok path=/validate-x mutating=false',
        ' */',
        'export class B {}',
        '',
      ].join('\n'),
    );
    let error: unknown;
    try {
      readWebhookMarkers(root, ['src']);
    } catch (err) {
      error = err;
    }
    assert.ok(error instanceof ProblemsError, `expected every problem at once, got ${String(error)}`);
    assert.equal(error.problems.length, 2, error.message);
    assert.match(
      error.problems[0]?.text ?? '',
      /^src\/a\.ts:3: \+kubebuilder:webhook:path=.* Write @webhook path=\/mutate-cache-example-com-v1-memcached/,
    );
    assert.match(
      error.problems[1]?.text ?? '',
      /^src\/a\.ts:8: @webhok: unknown tag\. Did you mean @webhook\?/,
    );
    assert.match(error.message, /2 problems$/);
  });
});
