#!/usr/bin/env node
import module from 'node:module';

// Node's compile cache makes every run after the first start faster (op-gen and its dependencies).
module.enableCompileCache?.();

const { main } = await import('../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
