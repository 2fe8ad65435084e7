import { startControlPlane } from '../src/testing/index.ts';
import { request } from 'node:https';
const cp = await startControlPlane({ apiServerFlags: ['--runtime-config=api/all=true'] });
try {
  const cluster = cp.kubeConfig.getCurrentCluster()!;
  const token = cp.kubeConfig.getCurrentUser()!.token!;
  const ca = Buffer.from(cluster.caData!, 'base64');
  const get = (path: string): Promise<any> => new Promise((res, rej) => {
    request(`${cp.server}${path}`, { headers: { authorization: `Bearer ${token}` }, ca }, (r) => {
      let b = ''; r.setEncoding('utf8'); r.on('data', (d) => (b += d)); r.on('end', () => res(JSON.parse(b)));
    }).on('error', rej).end();
  });
  const out: string[] = [];
  const groups = await get('/apis');
  const gvs = ['v1', ...groups.groups.flatMap((g: any) => g.versions.map((v: any) => v.groupVersion))];
  for (const gv of gvs) {
    const list = await get(gv === 'v1' ? '/api/v1' : `/apis/${gv}`);
    for (const r of list.resources ?? []) if (!r.name.includes('/')) out.push(`${gv} ${r.kind}`);
  }
  console.log(out.sort().join('\n'));
} finally { await cp.stop(); }
