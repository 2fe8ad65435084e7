import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { labelEntries, withLabels } from '../../../src/kustomize/index.ts';
import type { Manifest } from '../../../src/bundle/manifests.ts';

const service: Manifest = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 's', labels: { a: '1' } },
  spec: { selector: { app: 'x' } },
};
const deployment: Manifest = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd' },
  spec: {
    selector: { matchLabels: { app: 'x' } },
    template: { metadata: { labels: { app: 'x' } }, spec: { containers: [] } },
  },
};
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

describe('kustomize labels applied to one object (what the bundle does with config/default)', () => {
  it('labels: metadata only by default; selectors and templates with includeSelectors', () => {
    const plain = labelEntries({ labels: [{ pairs: { team: 'a' } }] });
    assert.deepEqual(withLabels(service, plain).metadata?.labels, { a: '1', team: 'a' });
    assert.deepEqual((withLabels(service, plain) as Doc).spec.selector, { app: 'x' });
    const d = withLabels(deployment, plain) as Doc;
    assert.deepEqual(d.spec.selector.matchLabels, { app: 'x' });
    assert.deepEqual(d.spec.template.metadata.labels, { app: 'x' });

    const selectors = labelEntries({ labels: [{ pairs: { team: 'a' }, includeSelectors: true }] });
    assert.deepEqual((withLabels(service, selectors) as Doc).spec.selector, { app: 'x', team: 'a' });
    const ds = withLabels(deployment, selectors) as Doc;
    assert.deepEqual(ds.spec.selector.matchLabels, { app: 'x', team: 'a' });
    assert.deepEqual(ds.spec.template.metadata.labels, { app: 'x', team: 'a' });
  });

  it('includeTemplates reaches pod templates but not selectors; commonLabels reach everything', () => {
    const templates = labelEntries({ labels: [{ pairs: { v: '2' }, includeTemplates: true }] });
    const dt = withLabels(deployment, templates) as Doc;
    assert.deepEqual(dt.spec.selector.matchLabels, { app: 'x' });
    assert.deepEqual(dt.spec.template.metadata.labels, { app: 'x', v: '2' });
    const common = labelEntries({ commonLabels: { c: 'y' } });
    const dc = withLabels(deployment, common) as Doc;
    assert.deepEqual(dc.metadata.labels, { c: 'y' });
    assert.deepEqual(dc.spec.selector.matchLabels, { app: 'x', c: 'y' });
    assert.deepEqual(dc.spec.template.metadata.labels, { app: 'x', c: 'y' });
  });

  it('leaves its input alone', () => {
    withLabels(service, labelEntries({ commonLabels: { c: 'y' } }));
    assert.deepEqual(service.metadata?.labels, { a: '1' });
  });

  it('applies labels, then commonLabels, as kustomize does: commonLabels win a key both set', () => {
    const both = labelEntries({ commonLabels: { k: 'common' }, labels: [{ pairs: { k: 'labels' } }] });
    assert.deepEqual(
      both.map((e) => e.pairs),
      [{ k: 'labels' }, { k: 'common' }],
    );
    assert.equal(withLabels(service, both).metadata?.labels?.k, 'common');
  });
});
