/**
 * `npm run bench:runtime`: 2,000 custom resources created at once against a fresh control plane; the
 * op-gen bench operator (bench/compare/op-gen-operator.mjs, on the built runtime) reconciles them.
 * Prints the time until all report Ready, reconciles per second and the manager's peak RSS.
 * Options: --objects N --workers N (default 4).
 */
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runOnce } from './compare/runtime-compare.ts';
import { ROOT } from './compare/tools.ts';

const { values } = parseArgs({
  options: { objects: { type: 'string', default: '2000' }, workers: { type: 'string', default: '4' } },
});
if (!existsSync(join(ROOT, 'dist/runtime/index.js'))) {
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const objects = Number(values.objects);
const workers = Number(values.workers);
const r = await runOnce('op-gen', workers, objects);
const reconciles = Number(r.reconciles?.reconciles ?? 0);
console.log(
  `op-gen/runtime: ${objects} custom resources created at once, ${workers} workers (node ${process.version})`,
);
console.log(
  `all Ready after:   ${(r.allReadyMs / 1000).toFixed(2)} s (${r.objectsPerSecond.toFixed(0)} objects/s)`,
);
console.log(
  `reconciles:        ${reconciles} (${(reconciles / (r.allReadyMs / 1000)).toFixed(0)}/s; ${JSON.stringify(r.reconciles)})`,
);
console.log(`manager peak RSS:  ${r.peakRssMb.toFixed(0)} MB`);
