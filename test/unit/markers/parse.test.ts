import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crdMarkers } from '../../../src/generate/crd/markers.ts';
import { MarkerRegistry, parseDocComment, splitNamedArgs, type RawTag } from '../../../src/markers/index.ts';

const tag = (name: string, text = '', line = 7): RawTag => ({ name, text, line });

describe('parseDocComment', () => {
  it('splits description and tags, with each tag on its own line number', () => {
    const doc = parseDocComment(
      [
        '/**',
        ' * Size is the number of pods.',
        ' *',
        ' * Second paragraph.',
        ' * @minimum 1',
        ' * @validation rule="self.all(x, x > 0)"',
        ' *   message="all positive"',
        ' * @printcolumn name=Ready type=string jsonPath=.status.conditions[?(@.type=="Ready")].status',
        ' */',
      ].join('\n'),
      10,
    );
    assert.equal(doc.description, 'Size is the number of pods.\n\nSecond paragraph.');
    assert.deepEqual(
      doc.tags.map((t) => [t.name, t.line]),
      [
        ['minimum', 14],
        ['validation', 15],
        ['printcolumn', 17],
      ],
    );
    assert.equal(doc.tags[1]?.text, 'rule="self.all(x, x > 0)"\nmessage="all positive"');
    assert.match(doc.tags[2]?.text ?? '', /@\.type=="Ready"/);
  });

  it('notes @words in the middle of lines, outside backticks and quotes', () => {
    const doc = parseDocComment(
      [
        '/**',
        ' * Size. @minimum 1',
        ' * mail me@example.com, use `@kind`',
        ' * @validation rule="x @y"',
        ' */',
      ].join('\n'),
      1,
    );
    assert.deepEqual(doc.inline, [{ name: 'minimum', line: 2 }]);
  });

  it('ends the description at a --- line, as controller-gen does', () => {
    const doc = parseDocComment(
      ['/**', ' * Shown.', ' * ---', ' * Hidden note.', ' * @minimum 1', ' */'].join('\n'),
      1,
    );
    assert.equal(doc.description, 'Shown.');
    assert.equal(doc.tags[0]?.name, 'minimum');
  });

  it('reads a one-line comment', () => {
    const doc = parseDocComment('/** @kind */', 3);
    assert.equal(doc.description, '');
    assert.deepEqual(doc.tags, [{ name: 'kind', text: '', line: 3 }]);
  });
});

describe('argument parsing', () => {
  it('splits named arguments with quoted, bracketed and bare values', () => {
    assert.deepEqual(splitNamedArgs('a=1 b="x y\\"z" c={"k":[1,2]} d=.x[?(@.t=="R")].s'), [
      { key: 'a', raw: '1', quoted: false },
      { key: 'b', raw: 'x y"z', quoted: true },
      { key: 'c', raw: '{"k":[1,2]}', quoted: false },
      { key: 'd', raw: '.x[?(@.t=="R")].s', quoted: false },
    ]);
  });

  it('parses typed positional values', () => {
    assert.equal(crdMarkers.parse(tag('minimum', '1.5'), 'field', 'f.ts')?.value, 1.5);
    assert.equal(crdMarkers.parse(tag('maxLength', '63'), 'field', 'f.ts')?.value, 63);
    assert.equal(crdMarkers.parse(tag('pattern', '^[a-z]+ x$'), 'field', 'f.ts')?.value, '^[a-z]+ x$');
    assert.deepEqual(crdMarkers.parse(tag('enum', 'a;b;3'), 'field', 'f.ts')?.value, ['a', 'b', 3]);
    assert.deepEqual(crdMarkers.parse(tag('default', '{"a":1}'), 'field', 'f.ts')?.value, { a: 1 });
    assert.equal(crdMarkers.parse(tag('default', 'info'), 'field', 'f.ts')?.value, 'info');
    assert.equal(crdMarkers.parse(tag('uniqueItems'), 'field', 'f.ts')?.value, true);
  });

  it('parses named arguments, case-insensitively by name', () => {
    const m = crdMarkers.parse(
      tag('printcolumn', 'name=Age type=date JSONPath=.metadata.creationTimestamp priority=1'),
      'type',
      'f.ts',
    );
    assert.deepEqual(m?.args, {
      name: 'Age',
      type: 'date',
      jsonPath: '.metadata.creationTimestamp',
      priority: 1,
    });
    const cel = crdMarkers.parse(tag('validation', 'rule="self > 0" optionalOldSelf=true'), 'field', 'f.ts');
    assert.deepEqual(cel?.args, { rule: 'self > 0', optionalOldSelf: true });
  });

  it('selects variants by their first word', () => {
    const m = crdMarkers.parse(
      tag('subresource', 'scale specpath=.spec.replicas statuspath=.status.replicas'),
      'type',
      'f.ts',
    );
    assert.equal(m?.spec.name, 'subresource scale');
    assert.equal(m?.args.specpath, '.spec.replicas');
    assert.equal(
      crdMarkers.parse(tag('subresource', 'status'), 'type', 'f.ts')?.spec.name,
      'subresource status',
    );
  });

  it('supports items: variants', () => {
    const m = crdMarkers.parse(tag('items:maximum', '5'), 'field', 'f.ts');
    assert.equal(m?.items, true);
    assert.equal(m?.spec.name, 'maximum');
  });

  it('passes unknown, non-similar tags through', () => {
    assert.equal(crdMarkers.parse(tag('see', 'x'), 'field', 'f.ts'), undefined);
    assert.equal(crdMarkers.parse(tag('operatorSdkCsvSpecDescriptor'), 'field', 'f.ts'), undefined);
    const all = crdMarkers.parseAll([tag('minimum', '1'), tag('csvDisplayName', 'Size')], 'field', 'f.ts');
    assert.equal(all.markers.length, 1);
    assert.deepEqual(
      all.unknown.map((t) => t.name),
      ['csvDisplayName'],
    );
  });
});

describe('marker errors name file:line, the marker and a fix', () => {
  const cases: [RawTag, 'field' | 'type', RegExp][] = [
    [tag('minimum', 'abc'), 'field', /^api\.ts:7: @minimum: value: expected a number, got "abc"/],
    [tag('maxLength', '1.5'), 'field', /expected an integer/],
    [tag('minimum'), 'field', /missing its value/],
    [tag('listType', 'bag'), 'field', /"bag" is not one of atomic, set, map/],
    [tag('printcolumn', 'name=A type=string'), 'type', /missing required argument "jsonPath"/],
    [tag('printcolumn', 'name=A type=string jsonPath=.a colour=red'), 'type', /unknown argument "colour"/],
    [tag('validation', 'rule="self > 0'), 'field', /quote is not closed/],
    [tag('scope', 'Namespaced'), 'field', /cannot stand on a field.*Put it on a type/],
    [tag('minimun', '1'), 'field', /unknown marker. Did you mean @minimum\?/],
    [tag('subresource', 'spec'), 'type', /unknown kind "spec".*@subresource status/],
    [tag('groupName', 'x'), 'type', /not supported by op-gen: the group is declared once in groupversion.ts/],
    [tag('storageversion', 'yes'), 'type', /takes no arguments/],
    [tag('default', '{"a":'), 'field', /not valid JSON/],
    [tag('items:default', '1'), 'field', /has no items: form/],
  ];
  for (const [t, target, re] of cases) {
    it(`@${t.name} ${t.text}`, () => {
      assert.throws(
        () => crdMarkers.parse(t, target, 'api.ts'),
        (err: Error) => {
          assert.equal(err.name, 'OpGenError');
          assert.match(err.message, re);
          return true;
        },
      );
    });
  }

  it('a marker given twice is an error unless repeatable', () => {
    assert.throws(
      () => crdMarkers.parseAll([tag('minimum', '1'), tag('minimum', '2', 8)], 'field', 'a.ts'),
      /a\.ts:8: @minimum: given twice/,
    );
    assert.equal(
      crdMarkers.parseAll([tag('validation', 'rule="a"'), tag('validation', 'rule="b"')], 'field', 'a.ts')
        .markers.length,
      2,
    );
  });

  it('rejects a registry with a duplicate name', () => {
    assert.throws(
      () =>
        new MarkerRegistry([
          { name: 'a', targets: ['field'], help: '' },
          { name: 'A', targets: ['field'], help: '' },
        ]),
      /registered twice/,
    );
  });

  it('a generic registry works for other generators (an RBAC-like marker)', () => {
    const rbac = new MarkerRegistry<string>([
      {
        name: 'rbac',
        targets: ['type'],
        repeatable: true,
        args: {
          groups: { type: 'string[]', help: 'API groups' },
          resources: { type: 'string[]', required: true, help: 'resources' },
          verbs: { type: 'string[]', required: true, help: 'verbs' },
        },
        help: 'an RBAC rule',
      },
    ]);
    const m = rbac.parse(
      tag('rbac', 'groups=apps resources=deployments;deployments/status verbs=get;list;watch'),
      'type',
      'c.ts',
    );
    assert.deepEqual(m?.args, {
      groups: ['apps'],
      resources: ['deployments', 'deployments/status'],
      verbs: ['get', 'list', 'watch'],
    });
    assert.equal(rbac.parse(tag('minimum', '1'), 'type', 'c.ts'), undefined);
  });
});
