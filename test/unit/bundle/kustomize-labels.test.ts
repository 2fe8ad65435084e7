import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyLabels, labelRules } from '../../../src/bundle/kustomize-labels.ts';
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

describe('kustomize labels, as the bundle applies them', () => {
  it('labels: metadata only by default; selectors and templates with includeSelectors', () => {
    const plain = labelRules({ labels: [{ pairs: { team: 'a' } }] });
    assert.deepEqual(applyLabels(service, plain).metadata?.labels, { a: '1', team: 'a' });
    assert.deepEqual((applyLabels(service, plain) as Doc).spec.selector, { app: 'x' });
    const d = applyLabels(deployment, plain) as Doc;
    assert.deepEqual(d.spec.selector.matchLabels, { app: 'x' });
    assert.deepEqual(d.spec.template.metadata.labels, { app: 'x' });

    const selectors = labelRules({ labels: [{ pairs: { team: 'a' }, includeSelectors: true }] });
    assert.deepEqual((applyLabels(service, selectors) as Doc).spec.selector, { app: 'x', team: 'a' });
    const ds = applyLabels(deployment, selectors) as Doc;
    assert.deepEqual(ds.spec.selector.matchLabels, { app: 'x', team: 'a' });
    assert.deepEqual(ds.spec.template.metadata.labels, { app: 'x', team: 'a' });
  });

  it('includeTemplates reaches pod templates but not selectors; commonLabels reach everything', () => {
    const templates = labelRules({ labels: [{ pairs: { v: '2' }, includeTemplates: true }] });
    const dt = applyLabels(deployment, templates) as Doc;
    assert.deepEqual(dt.spec.selector.matchLabels, { app: 'x' });
    assert.deepEqual(dt.spec.template.metadata.labels, { app: 'x', v: '2' });
    const common = labelRules({ commonLabels: { c: 'y' } });
    const dc = applyLabels(deployment, common) as Doc;
    assert.deepEqual(dc.metadata.labels, { c: 'y' });
    assert.deepEqual(dc.spec.selector.matchLabels, { app: 'x', c: 'y' });
    assert.deepEqual(dc.spec.template.metadata.labels, { app: 'x', c: 'y' });
  });

  it('leaves its input alone', () => {
    applyLabels(service, labelRules({ commonLabels: { c: 'y' } }));
    assert.deepEqual(service.metadata?.labels, { a: '1' });
  });
});
