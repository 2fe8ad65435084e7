import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { corpusProjects } from '../../../bench/compare/corpus-go.ts';
import { compareCrdDirs } from '../../../bench/compare/crd-compare.ts';
import { OpGenError } from '../../../src/errors.ts';
import { generateCrdsWith } from '../../../src/generate/crd/generate.ts';

/**
 * The corpus (test/corpus/README.md): real operator APIs written in op-gen's TS form, each beside
 * controller-gen v0.23.0's CRDs of the original Go (descriptions removed). Each project's CRDs must
 * match controller-gen's except for exactly the differences corpus.json records (a new difference
 * or a fixed one fails), and the front end that reads each project must be the one recorded.
 */

const CORPUS = new URL('../../corpus/', import.meta.url).pathname;

const corpus = { projects: corpusProjects() };
const readme = readFileSync(join(CORPUS, 'README.md'), 'utf8');

const work = mkdtempSync(join(tmpdir(), 'op-gen-corpus-'));
after(() => rmSync(work, { recursive: true, force: true }));

async function generate(
  project: string,
  front: 'auto' | 'syntax' | 'checker',
  embedded = corpus.projects[project]?.generateEmbeddedObjectMeta === true,
): Promise<string> {
  const outDir = join(work, `${project}-${front}`);
  await generateCrdsWith(front, {
    cwd: join(CORPUS, project),
    apiDir: 'api',
    outDir,
    maxDescLen: 0,
    generateEmbeddedObjectMeta: embedded,
  });
  return outDir;
}

describe('corpus: real operator APIs against controller-gen', () => {
  it('lists every project folder in corpus.json, and each in the README', () => {
    const folders = readdirSync(CORPUS, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    assert.deepEqual(Object.keys(corpus.projects).sort(), folders);
    assert.ok(folders.length >= 8, `${folders.length} projects`);
    for (const name of folders) assert.ok(readme.includes(`\`${name}\``), `README names ${name}`);
  });

  for (const [name, project] of Object.entries(corpus.projects)) {
    it(`${name}: the schema differences from controller-gen are exactly the known ones`, async () => {
      const out = await generate(name, 'auto');
      const found = compareCrdDirs(out, join(CORPUS, name, 'expected'), Infinity).sort();
      assert.deepEqual(found, project.differences.map((d) => d.difference).sort());
      for (const d of project.differences) {
        assert.ok(readme.includes(d.difference), `README's known-differences table lists ${d.difference}`);
      }
    });

    if (project.generateEmbeddedObjectMeta)
      it(`${name}: without generateEmbeddedObjectMeta, op-gen does not write expected/ (refuses a rule that needs it, or misses the embedded fields)`, async () => {
        if (name === 'jobset') {
          // Its PVC-template rule reads metadata.namespace: the API server refuses it without the option.
          await assert.rejects(
            generate(name, 'auto', false),
            /which the schema does not have \(an embedded ObjectMeta has name, namespace, labels, annotations and finalizers only with crd\.generateEmbeddedObjectMeta/,
          );
          return;
        }
        const out = await generate(name, 'checker', false);
        const found = compareCrdDirs(out, join(CORPUS, name, 'expected'), Infinity);
        assert.ok(
          found.length > 0 && found.every((d) => /\.metadata\.properties: controller-gen \{/.test(d)),
          found.join('\n'),
        );
      });

    it(`${name}: is read by the ${project.frontEnd} front end`, async () => {
      let declined: string | undefined;
      try {
        await generate(name, 'syntax');
      } catch (err) {
        if (!(err instanceof OpGenError)) throw err;
        declined = err.message.replace(/^the syntax front end declined: /, '').replace(CORPUS, '');
      }
      assert.equal(declined === undefined ? 'syntax' : 'checker', project.frontEnd);
      assert.equal(declined, project.declined);
      if (declined !== undefined)
        assert.ok(readme.includes(declined), `README gives the reason: ${declined}`);
      else {
        // What the syntax front end reads, it reads as the type checker's walk does: same bytes.
        const read = (dir: string): string[] =>
          readdirSync(dir)
            .sort()
            .map((f) => `${f}\n${readFileSync(join(dir, f), 'utf8')}`);
        const checker = await generate(name, 'checker');
        assert.deepEqual(read(join(work, `${name}-syntax`)), read(checker));
      }
    });
  }
});
