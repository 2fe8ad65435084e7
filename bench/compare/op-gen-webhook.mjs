// The op-gen side of `npm run bench:webhook`, as a user's compiled operator runs: plain JavaScript on
// the built op-gen/runtime (dist/). The same defaulting and validation as go-webhook/main.go (and
// test/fixtures/webhook/widget-webhooks.ts), served by op-gen's WebhookServer.
// Usage: node bench/compare/op-gen-webhook.mjs --host 127.0.0.1 --port 9443 --cert-dir DIR
import { parseArgs } from 'node:util';
import {
  createLogger,
  field,
  ValidationError,
  WebhookServer,
  defaultingHandler,
  validatingHandler,
  webhookPath,
} from '../../dist/runtime/index.js';

const { values } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '9443' },
    'cert-dir': { type: 'string' },
  },
});

const kind = { group: 'example.com', version: 'v2', kind: 'Widget' };

function check(obj) {
  const errors = [];
  if (obj.spec.size < 1)
    errors.push(field.invalid(field.path('spec', 'size'), obj.spec.size, 'must be at least 1'));
  const replicas = obj.spec.replicas ?? 0;
  if (replicas > obj.spec.size * 3)
    errors.push(
      field.invalid(
        field.path('spec', 'replicas'),
        replicas,
        `must be at most 3 × spec.size (${obj.spec.size * 3})`,
      ),
    );
  if (errors.length) throw new ValidationError(errors);
  return obj.spec.size > 10 ? [`spec.size ${obj.spec.size} is large; consider splitting the widget`] : [];
}

const server = new WebhookServer(
  { host: values.host, port: Number(values.port), certDir: values['cert-dir'] },
  { logger: createLogger({ level: 'warn' }) },
);
server.registerAdmission(
  webhookPath('mutate', kind),
  defaultingHandler({
    default(_ctx, obj) {
      obj.spec.replicas ??= obj.spec.size * 2;
    },
  }),
);
server.registerAdmission(
  webhookPath('validate', kind),
  validatingHandler({
    validateCreate: (_ctx, obj) => check(obj),
    validateUpdate(_ctx, oldObj, newObj) {
      if (oldObj.spec.tier !== undefined && newObj.spec.tier !== oldObj.spec.tier)
        throw new ValidationError([field.forbidden(field.path('spec', 'tier'), 'is immutable once set')]);
      return check(newObj);
    },
    validateDelete: () => {},
  }),
);
await server.start();
const stop = () => void server.stop().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
