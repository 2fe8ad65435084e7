import { createInterface } from 'node:readline/promises';
import { UsageError } from '../errors.ts';

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

/**
 * A required value: the flag's, else the answer to `question` when someone can answer, else a usage
 * error (exit code 2) naming the flag to pass.
 */
export async function requiredValue(
  value: string | undefined,
  flag: string,
  question: string,
  prompt: Prompter | undefined,
): Promise<string> {
  if (value !== undefined && value !== '') return value;
  const answer = prompt ? await prompt(question) : '';
  if (answer) return answer;
  const what = question.charAt(0).toLowerCase() + question.slice(1);
  throw new UsageError(`missing ${flag}: ${what}. Pass ${flag} <value>.`);
}
