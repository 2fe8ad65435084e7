import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GoFormIndex } from '../../../src/markers/go-form.ts';
import { goFormMessage, goForms } from '../../../src/generate/go-forms.ts';
import { parseDocComment } from '../../../src/markers/jsdoc.ts';
import { goFormLines } from '../../../src/generate/go-forms.ts';

/** controller-gen (Go) form markers → the op-gen form, from the registries' controller-gen names. */
describe('Go-form markers', () => {
  const cases: [string, string][] = [
    ['kubebuilder:validation:Minimum=0', '@minimum 0'],
    ['kubebuilder:validation:Minimum 0', '@minimum 0'],
    ['kubebuilder:validation:Minimun=0', '@minimum 0'],
    ['optional', '@optional'],
    ['kubebuilder:validation:Required', '@required'],
    ['listType=set', '@listType set'],
    ['kubebuilder:validation:Enum=a;b;c', '@enum a;b;c'],
    ['kubebuilder:default=3', '@default 3'],
    ['default:value=3', '@default 3'],
    ['kubebuilder:object:root=true', '@kind'],
    ['kubebuilder:subresource:status', '@subresource status'],
    [
      'kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas',
      '@subresource scale specpath=.spec.replicas statuspath=.status.replicas',
    ],
    ['kubebuilder:resource:path=foos,scope=Cluster', '@resource path=foos scope=Cluster'],
    ['kubebuilder:resource:shortName={mc,m}', '@shortName mc;m'],
    [
      'kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"',
      '@printcolumn name="Age" type="date" jsonPath=".metadata.creationTimestamp"',
    ],
    [
      'kubebuilder:validation:XValidation:rule="self > 0",message="must be, positive"',
      '@validation rule="self > 0" message="must be, positive"',
    ],
    [
      'kubebuilder:rbac:groups=apps,resources=deployments,verbs={get,list}',
      '@rbac groups=apps resources=deployments verbs=get;list',
    ],
    ['operator-sdk:csv:customresourcedefinitions:displayName="Memcached"', '@csv:displayName "Memcached"'],
  ];
  for (const [go, op] of cases) {
    it(`+${go} → ${op}`, () => {
      assert.equal(goForms.hint(go).write, op);
      assert.ok(goForms.isGoFormLine(`+${go.replace(' ', '=')}`));
    });
  }

  it('an unsupported marker says why; an unknown kubebuilder marker is still an error', () => {
    assert.match(
      goFormMessage('a.ts', 3, '+groupName=foo.io'),
      /a\.ts:3: \+groupName=foo\.io .*op-gen has no such marker: the group is declared once/,
    );
    assert.match(
      goFormMessage('a.ts', 3, '+kubebuilder:nothing:like=this'),
      /a\.ts:3: .*Write the op-gen marker \(JSDoc tag\) instead/,
    );
  });

  it('a description line that is not a marker stays text', () => {
    for (const line of ['+1 for this', '+ a bullet', '+note this', '+++'])
      assert.equal(goForms.isGoFormLine(line), false, line);
    const doc = parseDocComment(
      '/**\n * Size.\n * + a bullet\n * @minimum 1\n * +kubebuilder:validation:Maximum=3\n * more\n */',
      10,
      goFormLines,
    );
    assert.equal(doc.description, 'Size.\n+ a bullet');
    assert.deepEqual(
      doc.tags.map((t) => [t.name, t.text, t.line]),
      [['minimum', '1', 13]],
    );
    assert.deepEqual(doc.goForm, [{ text: 'kubebuilder:validation:Maximum=3', line: 14 }]);
  });

  it('any registry gets the mapping by naming its controller-gen marker (e.g. webhooks)', () => {
    const index = new GoFormIndex([
      {
        name: 'webhook',
        targets: ['type'],
        controllerGen: '+kubebuilder:webhook',
        help: '',
        args: { path: { type: 'string', help: '' }, mutating: { type: 'bool', help: '' } },
      },
    ]);
    assert.equal(
      index.hint('kubebuilder:webhook:path=/mutate,mutating=true').write,
      '@webhook path=/mutate mutating=true',
    );
    assert.ok(index.isGoFormLine('+kubebuilder:webhook:path=/mutate,mutating=true'));
  });
});
