#!/usr/bin/env node
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isSupportedNode, unsupportedNodeMessage } from './node-version.js';

// Before anything that needs a newer Node is loaded: on Node 20 op-gen's dependencies crash.
if (!isSupportedNode(process.versions.node)) {
  process.stderr.write(unsupportedNodeMessage(process.versions.node, process.argv.slice(2)) + '\n');
  process.exit(1);
}

// Node's compile cache makes every run after the first start faster (op-gen and its dependencies,
// the TypeScript compiler above all). It lives with op-gen's other caches rather than in the
// temporary folder, which a reboot empties; NODE_COMPILE_CACHE, when set, wins.
module.enableCompileCache?.(
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'op-gen', 'compile-cache'),
);

const { main } = await import('../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
