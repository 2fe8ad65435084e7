import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { Counter } from 'prom-client';
import { defineKind } from '../../../src/client/kind.ts';
import { ResourceClient, type ObjectLike } from '../../../src/client/resource-client.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import { FakeApiServer } from '../../../src/testing/fake-api-server.ts';

/**
 * /metrics on prom-client: controller-runtime's metric names and labels, the process and Node.js
 * metrics (event-loop lag included), and a metric the user registered with prom-client on the
 * manager's registry, all served from one registry.
 */
const Widget = defineKind<ObjectLike>({
  group: 'test.op-gen.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Manager metrics on prom-client', () => {
  it("serves controller-runtime's names, process and Node.js metrics, and the user's own", async () => {
    const server = new FakeApiServer().register(Widget);
    const mgr = await Manager.create({
      transport: server.transport(),
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '0',
      handleSignals: false,
      logger: createLogger({ level: 'error', write: () => {} }),
    });
    const mine = new Counter({
      name: 'my_operator_widgets_seen_total',
      help: 'Widgets seen',
      registers: [mgr.metrics.registry],
    });
    let done = 0;
    mgr
      .controller('widget')
      .for(Widget)
      .complete({
        async reconcile() {
          mine.inc();
          done++;
        },
      });
    const running = mgr.start();
    await mgr.ready;
    await new ResourceClient(server.transport(), Widget).create({ metadata: { name: 'w', namespace: 'ns' } });
    for (let i = 0; i < 500 && done === 0; i++) await new Promise((r) => setTimeout(r, 2));
    await new Promise((r) => setTimeout(r, 20));
    const { status, body } = await get(mgr.ports.metrics ?? 0, '/metrics');
    await mgr.stop();
    await running;
    assert.equal(status, 200);
    for (const series of [
      'controller_runtime_reconcile_total{controller="widget",result="success"} 1',
      'controller_runtime_reconcile_time_seconds_count{controller="widget"} 1',
      'controller_runtime_active_workers{controller="widget"} 0',
      'workqueue_adds_total{name="widget"} 1',
      'workqueue_queue_duration_seconds_count{name="widget"} 1',
      'workqueue_work_duration_seconds_count{name="widget"} 1',
      'my_operator_widgets_seen_total 1',
    ])
      assert.ok(body.includes(`\n${series}\n`), `missing ${series}`);
    for (const name of [
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_terminal_reconcile_errors_total',
      'workqueue_retries_total',
      'workqueue_depth',
      'leader_election_master_status',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'process_resident_memory_bytes',
      'process_cpu_seconds_total',
      'nodejs_heap_size_used_bytes',
    ])
      assert.match(body, new RegExp(`^# TYPE ${name} `, 'm'), `missing ${name}`);
  });
});
