import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { corpusProjects } from '../../../bench/compare/corpus-go.ts';
import { readCheckerTypes } from '../../../src/generate/crd/model.ts';
import { readSyntaxTypes } from '../../../src/generate/crd/syntax-walk.ts';
import type {
  Documented,
  ModelField,
  ModelKind,
  ModelType,
  TypeUse,
} from '../../../src/source/type-model.ts';
import { scaffoldTemplate } from '../broken-input/project.ts';

/**
 * Both CRD front ends only read the API sources into the type model (source/type-model.ts); one
 * builder makes the schemas. This test requires the same model from both, written out in full, on
 * every fixture the syntax reader reads and on the corpus of real operator APIs (test/corpus):
 * syntax-front-end.test.ts and corpus.test.ts require the same CRD bytes.
 */

const FIXTURES = new URL('../../fixtures/', import.meta.url).pathname;
const CORPUS = new URL('../../corpus/', import.meta.url).pathname;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A model written out as JSON, walked in the order the schema builder walks it. */
class ModelWriter {
  readonly #inProgress = new Set<object>();
  fields = 0;

  kinds(kinds: readonly ModelKind[]): Json {
    return kinds.map((k) => ({
      group: k.group,
      version: k.version,
      name: k.name,
      exported: k.exported,
      generic: k.generic,
      location: { ...k.location },
      doc: this.#doc(k.doc),
      fields: k.fields().map((f) => this.#field(f, true)),
    }));
  }

  #doc(d: Documented | undefined): Json {
    return d ? (JSON.parse(JSON.stringify(d)) as Json) : null;
  }

  #field(f: ModelField, root: boolean): Json {
    this.fields++;
    const out: { [key: string]: Json } = {
      name: f.name,
      optional: f.optional,
      method: f.method,
      location: f.location ? { ...f.location } : null,
      doc: this.#doc(f.doc),
    };
    if (!root) out.forbidden = f.forbidden();
    // A kind's apiVersion and kind are never typed by the builder; its metadata is checked by name.
    // A @schemaless field's type is never asked for either.
    const schemaless = f.doc?.doc.tags.some((t) => t.name === 'schemaless') === true;
    if (root && f.name === 'metadata') out.typeName = f.typeName().name ?? null;
    else if (!schemaless && (!root || (f.name !== 'apiVersion' && f.name !== 'kind')))
      out.type = this.#use(f.type());
    return out;
  }

  #use(u: TypeUse): Json {
    return { aliases: u.aliases.map((a) => this.#doc(a)), nullable: u.nullable, type: this.#type(u.type) };
  }

  #type(t: ModelType): Json {
    switch (t.t) {
      case 'scalar':
      case 'format':
      case 'enum':
      case 'unknown':
      case 'unsupported':
        return JSON.parse(JSON.stringify(t)) as Json;
      case 'builtin':
        return { t: t.t, name: t.name };
      case 'objectMeta':
      case 'preserve':
        return { t: t.t };
      case 'objectUnion':
        return { t: t.t, members: t.members.map((m) => this.#type(m.type())) };
      case 'array':
        return this.#once(t.key, () => ({ t: t.t, element: this.#use(t.element()) }));
      case 'object':
        return this.#once(t, () => {
          const fields = t.fields();
          // An undocumented declaration (a lib type such as Record) counts as none.
          const doc = t.decl && (t.decl.doc.description || t.decl.doc.tags.length > 0) ? t.decl : undefined;
          const written = fields.map((f) => this.#field(f, false));
          const index = t.index();
          return {
            t: t.t,
            decl: doc ? { name: doc.name, doc: this.#doc(doc) } : null,
            index: index ? (index.keys === 'string' ? this.#use(index.value) : 'other') : null,
            fields: written,
          };
        });
    }
  }

  /** `walk` with `key` in progress: a type met again below itself is written as recursive. */
  #once(key: object, walk: () => Json): Json {
    if (this.#inProgress.has(key)) return 'recursive';
    this.#inProgress.add(key);
    try {
      return walk();
    } finally {
      this.#inProgress.delete(key);
    }
  }
}

async function models(cwd: string, apiDir: string): Promise<{ syntax: Json; checker: Json; fields: number }> {
  const writer = new ModelWriter();
  const syntax = writer.kinds((await readSyntaxTypes({ cwd, apiDir })).kinds);
  const fields = writer.fields;
  const checker = new ModelWriter().kinds((await readCheckerTypes({ cwd, apiDir })).kinds);
  return { syntax, checker, fields };
}

describe('the type model: both front ends read the same', () => {
  it('on every fixture the syntax reader reads', async () => {
    const { dir, cleanup } = await scaffoldTemplate();
    try {
      const cases: [string, string][] = [
        [dir, 'src/api'],
        [join(FIXTURES, 'crd'), 'api-cel'],
        [join(FIXTURES, 'crd'), 'api-big'],
        [join(FIXTURES, 'crd/parity'), 'api'],
        [join(FIXTURES, 'crd/consts'), 'src/api'],
        [join(FIXTURES, 'crd/reexports'), 'src/api'],
        [join(FIXTURES, 'crd/embedded-meta'), 'src/api'],
        [join(FIXTURES, 'crd/object-equality'), 'src/api'],
        [join(FIXTURES, 'types-bench'), 'api'],
      ];
      let fields = 0;
      for (const [cwd, apiDir] of cases) {
        const m = await models(cwd, apiDir);
        assert.deepEqual(m.syntax, m.checker, `${cwd} ${apiDir}`);
        fields += m.fields;
      }
      // Every fixture has kinds with fields (a model of nothing would be equal too).
      assert.ok(fields > 150, `${fields} fields compared`);
    } finally {
      cleanup();
    }
  });

  it('on the corpus of real operator APIs', async () => {
    const projects = Object.keys(corpusProjects());
    assert.equal(projects.length, 8);
    let fields = 0;
    for (const project of projects) {
      const m = await models(join(CORPUS, project), 'api');
      assert.deepEqual(m.syntax, m.checker, project);
      fields += m.fields;
    }
    assert.ok(fields > 300, `${fields} fields compared`);
  });
});
