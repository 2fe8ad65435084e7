import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const ROOT = new URL('../../../', import.meta.url).pathname;
const readme = readFileSync(`${ROOT}README.md`, 'utf8');

/** The shell blocks of the README's "On a fresh machine" section. */
function freshMachineCommands(): string[] {
  const section = readme.slice(readme.indexOf('## On a fresh machine'), readme.indexOf('## Commands'));
  return [...section.matchAll(/```sh\n([^\n]+)\n```/g)].map((m) => m[1]!);
}

describe("the README's two commands (item 10)", () => {
  it('get Node 24 from the npm registry themselves', () => {
    const commands = freshMachineCommands();
    assert.equal(commands.length, 2);
    for (const command of commands) assert.match(command, /^npx -y -p node@24 -c '[^']+'$/);
  });

  it('.ci/run runs the test command verbatim', () => {
    const test = freshMachineCommands()[1]!;
    assert.match(test, /npm ci && npm run setup:envtest && npm test/);
    const ciRun = readFileSync(`${ROOT}.ci/run`, 'utf8').split('\n');
    assert.ok(ciRun.includes(test), `.ci/run should contain the line:\n${test}`);
  });
});
