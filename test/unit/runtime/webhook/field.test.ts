import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  field,
  fieldErrorMessage,
  FieldPath,
  ValidationError,
} from '../../../../src/runtime/webhook/field.ts';

describe('field paths', () => {
  it('builds paths like apimachinery', () => {
    const p = field.path('spec', 'template').child('containers').index(2).child('env').key('HOME');
    assert.equal(p.toString(), 'spec.template.containers[2].env[HOME]');
    assert.equal(FieldPath.root('metadata').child('labels', 'app').toString(), 'metadata.labels.app');
  });
});

describe('field errors', () => {
  const p = field.path('spec', 'replicas');
  it('prints what apimachinery prints', () => {
    assert.equal(
      fieldErrorMessage(field.invalid(p, 0, 'must be at least 1')),
      'spec.replicas: Invalid value: 0: must be at least 1',
    );
    assert.equal(
      fieldErrorMessage(field.invalid('spec.name', 'x', 'bad')),
      'spec.name: Invalid value: "x": bad',
    );
    assert.equal(fieldErrorMessage(field.required(p)), 'spec.replicas: Required value');
    assert.equal(fieldErrorMessage(field.required(p, 'needed')), 'spec.replicas: Required value: needed');
    assert.equal(
      fieldErrorMessage(field.forbidden(p, 'is immutable')),
      'spec.replicas: Forbidden: is immutable',
    );
    assert.equal(
      fieldErrorMessage(field.notSupported(p, 'c', ['a', 'b'])),
      'spec.replicas: Unsupported value: "c": supported values: "a", "b"',
    );
    assert.equal(fieldErrorMessage(field.duplicate(p, 3)), 'spec.replicas: Duplicate value: 3');
    assert.equal(fieldErrorMessage(field.notFound(p, 'x')), 'spec.replicas: Not found: "x"');
    assert.equal(
      fieldErrorMessage(field.tooLong(p, 10)),
      'spec.replicas: Too long: may not be more than 10 bytes',
    );
    assert.equal(
      fieldErrorMessage(field.tooMany(p, 5, 3)),
      'spec.replicas: Too many: must have at most 3 items',
    );
    assert.equal(
      fieldErrorMessage(field.internal(p, new Error('boom'))),
      'spec.replicas: Internal error: boom',
    );
    assert.equal(
      fieldErrorMessage(field.typeInvalid(p, {}, 'not a number')),
      'spec.replicas: Invalid value: {}: not a number',
    );
  });
  it('carries the type metav1 names as cause reasons', () => {
    assert.equal(field.invalid(p, 1, 'x').type, 'FieldValueInvalid');
    assert.equal(field.required(p).type, 'FieldValueRequired');
    assert.equal(field.forbidden(p, 'x').type, 'FieldValueForbidden');
  });
  it('a ValidationError aggregates its errors in its message', () => {
    const err = new ValidationError([field.required('a'), field.forbidden('b', 'no')], { warnings: ['w'] });
    assert.equal(err.message, 'a: Required value, b: Forbidden: no');
    assert.deepEqual(err.warnings, ['w']);
    assert.equal(err.errors.length, 2);
  });
});
