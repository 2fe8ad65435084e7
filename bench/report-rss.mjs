// Preloaded into a benchmarked child (`node --import`): on exit, writes the process's peak RSS in KB
// to file descriptor 3, where the bench reads it.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  try {
    writeSync(3, String(process.resourceUsage().maxRSS));
  } catch {
    // fd 3 is not open: not run by the bench.
  }
});
