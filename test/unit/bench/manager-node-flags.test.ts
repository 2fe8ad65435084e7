import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { MANAGER_NODE_FLAGS } from '../../../bench/compare/tools.ts';

const template = (path: string) =>
  readFileSync(new URL(`../../../templates/init/${path}`, import.meta.url), 'utf8');

describe('the Node flags of the scaffolded manager', () => {
  it('are the same in the Dockerfile (the compile cache warm-up and the ENTRYPOINT), the start script and the runtime benches', () => {
    const entrypoint = /ENTRYPOINT \[(.*)\]/.exec(template('Dockerfile.hbs'))?.[1];
    assert.deepEqual(JSON.parse(`[${entrypoint}]`), ['node', ...MANAGER_NODE_FLAGS, 'main.mjs']);
    // The compile cache is keyed by the V8 flags: filled with other flags, the manager would not use it.
    const warm = /RUN \[(.*warm-compile-cache\.mjs.*)\]/.exec(template('Dockerfile.hbs'))?.[1];
    assert.deepEqual(JSON.parse(`[${warm}]`), ['node', ...MANAGER_NODE_FLAGS, 'warm-compile-cache.mjs']);
    const start = /"start": "exec node (.*) dist\/main\.js"/.exec(template('package.json.hbs'))?.[1];
    assert.deepEqual(start?.split(' '), [...MANAGER_NODE_FLAGS]);
  });
});
