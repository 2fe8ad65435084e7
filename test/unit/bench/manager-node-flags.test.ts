import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { MANAGER_NODE_FLAGS } from '../../../bench/compare/tools.ts';

const template = (path: string) =>
  readFileSync(new URL(`../../../templates/init/${path}`, import.meta.url), 'utf8');

describe('the Node flags of the scaffolded manager', () => {
  it('are the same in the Dockerfile, the start script and the runtime benches', () => {
    const entrypoint = /ENTRYPOINT \[(.*)\]/.exec(template('Dockerfile.hbs'))?.[1];
    assert.deepEqual(JSON.parse(`[${entrypoint}]`), ['node', ...MANAGER_NODE_FLAGS, 'main.mjs']);
    const start = /"start": "exec node (.*) dist\/main\.js"/.exec(template('package.json.hbs'))?.[1];
    assert.deepEqual(start?.split(' '), [...MANAGER_NODE_FLAGS]);
  });
});
