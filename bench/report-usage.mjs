// Preloaded into a benchmarked child (`node --import`): on exit, writes the process's peak RSS (KB)
// and CPU time (user + system, ms) as JSON to file descriptor 3, where the bench reads it.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const usage = process.resourceUsage();
  try {
    writeSync(
      3,
      JSON.stringify({ maxRssKb: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }),
    );
  } catch {
    // fd 3 is not open: not run by the bench.
  }
});
