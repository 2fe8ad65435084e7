import { createInterface } from 'node:readline/promises';

/** Asks the user for a missing value; returns the answer (possibly empty). */
export type Prompter = (question: string) => Promise<string>;

/**
 * A prompter on the terminal, or undefined when nobody can answer: stdin is not a TTY, or CI is set.
 * Commands then fail with a message naming the missing flag instead of waiting.
 */
export function terminalPrompter(
  stdin: NodeJS.ReadStream = process.stdin,
  stderr: NodeJS.WritableStream = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): Prompter | undefined {
  if (!stdin.isTTY || env.CI) return undefined;
  return async (question) => {
    const rl = createInterface({ input: stdin, output: stderr });
    try {
      return (await rl.question(`${question}: `)).trim();
    } finally {
      rl.close();
    }
  };
}
