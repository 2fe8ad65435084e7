#!/usr/bin/env node
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { idleAfterCommand, resourcesBeforeCommand } from './exit-when-idle.js';
import { isSupportedNode, unsupportedNodeMessage } from './node-version.js';

// Before anything that needs a newer Node is loaded: on Node 20 op-gen's dependencies crash.
if (!isSupportedNode(process.versions.node)) {
  process.stderr.write(unsupportedNodeMessage(process.versions.node, process.argv.slice(2)) + '\n');
  process.exit(1);
}

// V8 flags for a one-shot CLI, set for every command before any module compiles. The code cache
// below is only accepted by a process with the same V8 flags: when \`generate crd\` alone set them,
// each switch between commands (\`npm run generate\` runs crd, rbac and client) rejected and rewrote
// the compiler's 2.5 MB cache entry, about 110 ms a run.
// - A run allocates in bursts (parse, walk, YAML): letting V8 grow the young generation doubles
//   generate crd's peak RSS for no speed gain (bench/crd.ts: ~150 vs ~200 MB).
// - GC helper threads compete with the work on 2 cores: one thread was 5-8% faster for generate crd.
// - TurboFan (the top tier) and Maglev's inlining pay off in long-running processes, not in a run
//   of half a second: compiling the compiler's huge hot functions costs more time and memory than
//   the optimized code saves. Without them (Ignition, Sparkplug and Maglev without inlining remain),
//   5-9 alternating runs: generate crd 100 kinds 441 -> 390 ms and 141 -> 127 MB peak RSS, 10 kinds
//   223 -> 217 ms, 500 kinds 1088 -> 1078 ms; generate types on a 2.1 MB CRD 202 -> 180 ms.
// - Maglev compiles a function after 1,000 calls instead of 400: the compiler's functions that run a
//   few hundred times are not worth compiling in a half-second run; 7 alternating runs at 100 kinds,
//   same time (0.44 s) and 113.9 -> 107.8 MB peak RSS (10 kinds 93.2 -> 89.3 MB, 500 kinds 186 ->
//   178 MB, 3% slower).
// The operator a project runs is not started through this file and keeps its own flags.
setFlagsFromString('--semi-space-growth-factor=1');
// Not on Node 22: its V8 (12.4) aborts when the flag changes after startup and a GC then finishes a
// concurrent marking ("Check failed: concurrent_marking_handle_ ..."): `op-gen init` on Node 22.19 died
// that way while npm install ran (test/integration/package/tarball.test.ts).
if (Number(process.versions.node.split('.')[0]) >= 24) setFlagsFromString('--single-threaded-gc');
setFlagsFromString('--no-opt');
setFlagsFromString('--no-maglev-inlining');
setFlagsFromString('--invocation-count-for-maglev=1000');

// Node's compile cache makes every run after the first start faster (op-gen and its dependencies,
// the TypeScript compiler above all). It lives with op-gen's other caches rather than in the
// temporary folder, which a reboot empties; NODE_COMPILE_CACHE, when set, wins.
module.enableCompileCache?.(
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'op-gen', 'compile-cache'),
);

// A finished command with nothing left to do (no child, socket, timer or unwritten output) exits at
// once instead of letting the event loop empty: a one-shot run has no use for what V8 does then, and
// what it did was a major GC at the process's peak. `generate crd` on 100 kinds x 20 fields starts
// incremental marking late in the run and finished it after the command: peak RSS 100.3 -> 91.3 MB
// with the output folder up to date, 97.5 -> 90.1 MB writing it (3 runs each, --single-threaded).
// Anything else (`op-gen run`'s manager, a pipe still draining) ends as before.
const { main } = await import('../dist/cli/main.js');
const before = resourcesBeforeCommand(process);
const code = await main(process.argv.slice(2));
process.exitCode = code;
if (idleAfterCommand(process, before)) process.exit(code);
