#!/usr/bin/env node
import module from 'node:module';
import { isSupportedNode, unsupportedNodeMessage } from './node-version.js';

// Before anything that needs a newer Node is loaded: on Node 20 op-gen's dependencies crash.
if (!isSupportedNode(process.versions.node)) {
  process.stderr.write(unsupportedNodeMessage(process.versions.node, process.argv.slice(2)) + '\n');
  process.exit(1);
}

// Node's compile cache makes every run after the first start faster (op-gen and its dependencies).
module.enableCompileCache?.();

const { main } = await import('../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
