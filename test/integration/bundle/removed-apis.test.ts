import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { atOrAfter, REMOVED_APIS, removedApi } from '../../../src/bundle/removed-apis.ts';
import {
  controlPlaneSkip,
  ENVTEST_K8S_VERSION,
  startControlPlane,
  type ControlPlane,
} from '../../../src/testing/index.ts';

interface ApiGroupList {
  groups: { versions: { groupVersion: string }[] }[];
}
interface ApiResourceList {
  resources: { name: string; kind: string }[];
}

/**
 * `bundle validate`'s table of removed APIs against the running release (OP_GEN_K8S_VERSION selects it;
 * `npm run test:matrix` runs this on 1.35 and 1.37). Every API group version is switched on
 * (`--runtime-config=api/all=true`), so beta and alpha APIs that are off by default are served too.
 */
describe(
  'removed APIs table against the real kube-apiserver (every API enabled)',
  { timeout: 120_000, skip: controlPlaneSkip() },
  () => {
    let cp: ControlPlane;
    /** `groupVersion kind` of every top-level resource served. */
    const served = new Set<string>();

    before(async () => {
      cp = await startControlPlane({ apiServerFlags: ['--runtime-config=api/all=true'] });
      const token = cp.kubeConfig.getCurrentUser()?.token ?? '';
      const ca = Buffer.from(cp.kubeConfig.getCurrentCluster()?.caData ?? '', 'base64');
      const get = <T>(path: string): Promise<T> =>
        new Promise((resolve, reject) => {
          request(`${cp.server}${path}`, { headers: { authorization: `Bearer ${token}` }, ca }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (body += d));
            res.on('end', () =>
              res.statusCode === 200
                ? resolve(JSON.parse(body) as T)
                : reject(new Error(`${path}: ${res.statusCode}`)),
            );
          })
            .on('error', reject)
            .end();
        });
      const groups = await get<ApiGroupList>('/apis');
      const groupVersions = ['v1', ...groups.groups.flatMap((g) => g.versions.map((v) => v.groupVersion))];
      for (const gv of groupVersions) {
        const list = await get<ApiResourceList>(gv === 'v1' ? '/api/v1' : `/apis/${gv}`);
        for (const r of list.resources) if (!r.name.includes('/')) served.add(`${gv} ${r.kind}`);
      }
    });
    after(() => cp?.stop());

    it('serves no kind the table says this release removed', () => {
      const wrong = [...served].filter((key) => {
        const [gv = '', kind = ''] = key.split(' ');
        const removed = removedApi(gv, kind);
        return removed !== undefined && atOrAfter(ENVTEST_K8S_VERSION, removed.removedIn);
      });
      assert.ok(served.has('apps/v1 Deployment'), 'discovery was read');
      assert.deepEqual(wrong, [], `served on v${ENVTEST_K8S_VERSION} although the table says removed`);
    });

    it('serves every listed kind the table says is removed only in a later release', () => {
      const later = REMOVED_APIS.filter((r) => !atOrAfter(ENVTEST_K8S_VERSION, r.removedIn));
      const missing = later.flatMap((r) =>
        (r.kinds ?? []).map((k) => `${r.groupVersion} ${k}`).filter((key) => !served.has(key)),
      );
      assert.deepEqual(
        missing,
        [],
        `not served on v${ENVTEST_K8S_VERSION} although the table says removed later`,
      );
    });
  },
);
