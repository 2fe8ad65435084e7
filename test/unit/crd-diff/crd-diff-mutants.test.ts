import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { matches, readAcknowledgements } from '../../../src/crd-diff/acknowledgements.ts';
import { OpGenError } from '../../../src/errors.ts';
import type { JSONSchemaProps } from '../../../src/api-types/json-schema.ts';
import { diffCrds, diffSchemas, type SchemaChange } from '../../../src/crd-diff/index.ts';
import type { CrdDocument, CrdDocumentVersion, Finding } from '../../../src/crd-diff/types.ts';

/**
 * Every finding in full (severity, rule, path, message, old and new values), for each rule's
 * outcomes: the other crd-diff tests compare `severity rule path` only, which lets the mutants of
 * the messages and the values survive (`npm run test:mutation -- crd-diff`,
 * reports/mutation/crd-diff.json). The expected findings were printed by the code of this commit
 * and read one by one; a message changed on purpose changes them here.
 */
type Schema = JSONSchemaProps & Record<string, unknown>;
const S = (x: Record<string, unknown>): Schema => x as Schema;
const obj = (props: Record<string, Schema>, extra: Record<string, unknown> = {}): Schema =>
  S({ type: 'object', properties: props, ...extra });

const SCHEMA_CASES: [string, Schema, Schema][] = [
  ['type changed, nothing below compared', obj({ a: S({ type: 'string' }) }), S({ type: 'string' })],
  [
    'int-or-string and preserved-unknown are types of their own',
    S({ 'x-kubernetes-int-or-string': true }),
    S({ 'x-kubernetes-preserve-unknown-fields': true }),
  ],
  ['no type on either side: unspecified', S({ description: 'a' }), S({ description: 'b' })],
  [
    'description added, removed',
    obj({ a: S({ type: 'string' }), b: S({ type: 'string', description: 'b' }) }),
    obj({ a: S({ type: 'string', description: 'a' }), b: S({ type: 'string' }) }),
  ],
  [
    'default added, removed, changed, unchanged',
    obj({
      a: S({ type: 'string' }),
      b: S({ type: 'string', default: 'x' }),
      c: S({ type: 'string', default: 'x' }),
      d: S({ type: 'object', default: { k: 1 } }),
    }),
    obj({
      a: S({ type: 'string', default: 'x' }),
      b: S({ type: 'string' }),
      c: S({ type: 'string', default: 'y' }),
      d: S({ type: 'object', default: { k: 1 } }),
    }),
  ],
  [
    'enum added, removed, values removed, values added, same values reordered',
    obj({
      a: S({ type: 'string' }),
      b: S({ type: 'string', enum: ['x'] }),
      c: S({ type: 'string', enum: ['x', 'y'] }),
      d: S({ type: 'string', enum: ['x'] }),
      e: S({ type: 'string', enum: ['x', 'y'] }),
    }),
    obj({
      a: S({ type: 'string', enum: ['x'] }),
      b: S({ type: 'string' }),
      c: S({ type: 'string', enum: ['x', 'z'] }),
      d: S({ type: 'string', enum: ['x', 'y', 'z'] }),
      e: S({ type: 'string', enum: ['y', 'x'] }),
    }),
  ],
  [
    'enum of objects compared by value',
    S({ type: 'object', enum: [{ a: 1 }] }),
    S({ type: 'object', enum: [{ a: 1 }, { a: 2 }] }),
  ],
  [
    'lower bounds added, removed, raised, lowered',
    obj({
      a: S({ type: 'integer' }),
      b: S({ type: 'integer', minimum: 1 }),
      c: S({ type: 'string', minLength: 1 }),
      d: S({ type: 'array', minItems: 3 }),
      e: S({ type: 'object', minProperties: 2 }),
    }),
    obj({
      a: S({ type: 'integer', minimum: 1 }),
      b: S({ type: 'integer' }),
      c: S({ type: 'string', minLength: 2 }),
      d: S({ type: 'array', minItems: 2 }),
      e: S({ type: 'object', minProperties: 2 }),
    }),
  ],
  [
    'upper bounds added, removed, lowered, raised',
    obj({
      a: S({ type: 'integer' }),
      b: S({ type: 'integer', maximum: 1 }),
      c: S({ type: 'string', maxLength: 5 }),
      d: S({ type: 'array', maxItems: 3 }),
      e: S({ type: 'object', maxProperties: 1 }),
    }),
    obj({
      a: S({ type: 'integer', maximum: 9 }),
      b: S({ type: 'integer' }),
      c: S({ type: 'string', maxLength: 4 }),
      d: S({ type: 'array', maxItems: 4 }),
      e: S({ type: 'object', maxProperties: 1 }),
    }),
  ],
  [
    'exclusive bounds: made exclusive, made inclusive, shown as exclusive',
    obj({
      a: S({ type: 'number', minimum: 1 }),
      b: S({ type: 'number', maximum: 1, exclusiveMaximum: true }),
      c: S({ type: 'number', minimum: 1, exclusiveMinimum: true }),
      d: S({ type: 'number', maximum: 5 }),
    }),
    obj({
      a: S({ type: 'number', minimum: 1, exclusiveMinimum: true }),
      b: S({ type: 'number', maximum: 1 }),
      c: S({ type: 'number', minimum: 2, exclusiveMinimum: true }),
      d: S({ type: 'number', maximum: 5, exclusiveMaximum: true }),
    }),
  ],
  [
    'exclusive flags of other bounds are not read',
    S({ type: 'string', minLength: 1, exclusiveMinimum: true }),
    S({ type: 'string', minLength: 1 }),
  ],
  [
    'pattern and format added, changed, removed',
    obj({
      a: S({ type: 'string' }),
      b: S({ type: 'string', pattern: 'x' }),
      c: S({ type: 'string', format: 'date' }),
      d: S({ type: 'string', format: 'date' }),
    }),
    obj({
      a: S({ type: 'string', pattern: 'x', format: 'uri' }),
      b: S({ type: 'string', pattern: 'y' }),
      c: S({ type: 'string' }),
      d: S({ type: 'string', format: 'date' }),
    }),
  ],
  [
    'nullable and preserve-unknown-fields set and cleared',
    obj({
      a: S({ type: 'string' }),
      b: S({ type: 'string', nullable: true }),
      c: S({ type: 'object' }),
      d: S({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
    }),
    obj({
      a: S({ type: 'string', nullable: true }),
      b: S({ type: 'string' }),
      c: S({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
      d: S({ type: 'object' }),
    }),
  ],
  [
    'CEL rules added, removed, changed, message changed',
    S({
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.a > 0', message: 'a' },
        { rule: 'self.b > 0' },
        { rule: 'self.c > 0' },
      ],
    }),
    S({
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.a > 0', message: 'A' },
        { rule: 'self.b > 1' },
        { rule: 'self.d > 0' },
        { rule: 'self.e > 0' },
      ],
    }),
  ],
  [
    'CEL rules removed beyond the pairs',
    S({ type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a > 0' }, { rule: 'self.b > 0' }] }),
    S({ type: 'object', 'x-kubernetes-validations': [] }),
  ],
  [
    'CEL rules only on the new side, only on the old side',
    obj({
      a: S({ type: 'object' }),
      b: S({ type: 'object', 'x-kubernetes-validations': [{ rule: 'true' }] }),
    }),
    obj({
      a: S({ type: 'object', 'x-kubernetes-validations': [{ rule: 'true' }] }),
      b: S({ type: 'object' }),
    }),
  ],
  [
    'title, example and externalDocs',
    S({ type: 'string', title: 'a', externalDocs: { url: 'x' } }),
    S({ type: 'string', title: 'b', example: 'e', externalDocs: { url: 'x' } }),
  ],
  [
    'multipleOf added, removed, loosened, changed',
    obj({
      a: S({ type: 'integer' }),
      b: S({ type: 'integer', multipleOf: 2 }),
      c: S({ type: 'integer', multipleOf: 4 }),
      d: S({ type: 'integer', multipleOf: 4 }),
    }),
    obj({
      a: S({ type: 'integer', multipleOf: 2 }),
      b: S({ type: 'integer' }),
      c: S({ type: 'integer', multipleOf: 2 }),
      d: S({ type: 'integer', multipleOf: 3 }),
    }),
  ],
  [
    'uniqueItems set and cleared',
    obj({ a: S({ type: 'array' }), b: S({ type: 'array', uniqueItems: true }) }),
    obj({ a: S({ type: 'array', uniqueItems: true }), b: S({ type: 'array' }) }),
  ],
  [
    'list types: set, map, atomic',
    obj({
      a: S({ type: 'array' }),
      b: S({ type: 'array', 'x-kubernetes-list-type': 'set' }),
      c: S({ type: 'array', 'x-kubernetes-list-type': 'set' }),
    }),
    obj({
      a: S({ type: 'array', 'x-kubernetes-list-type': 'set' }),
      b: S({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] }),
      c: S({ type: 'array' }),
    }),
  ],
  [
    'list-map keys changed, reordered, added',
    obj({
      a: S({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] }),
      b: S({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k', 'j'] }),
      c: S({ type: 'array', 'x-kubernetes-list-type': 'map' }),
    }),
    obj({
      a: S({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['j'] }),
      b: S({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['j', 'k'] }),
      c: S({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] }),
    }),
  ],
  [
    'set keys are not compared',
    S({ type: 'array', 'x-kubernetes-list-type': 'set', 'x-kubernetes-list-map-keys': ['k'] }),
    S({ type: 'array', 'x-kubernetes-list-type': 'set', 'x-kubernetes-list-map-keys': ['j'] }),
  ],
  [
    'map types: atomic, granular, absent is granular',
    obj({
      a: S({ type: 'object' }),
      b: S({ type: 'object', 'x-kubernetes-map-type': 'atomic' }),
      c: S({ type: 'object', 'x-kubernetes-map-type': 'granular' }),
    }),
    obj({
      a: S({ type: 'object', 'x-kubernetes-map-type': 'atomic' }),
      b: S({ type: 'object' }),
      c: S({ type: 'object' }),
    }),
  ],
  [
    'embedded resource set and cleared',
    obj({ a: S({ type: 'object' }), b: S({ type: 'object', 'x-kubernetes-embedded-resource': true }) }),
    obj({ a: S({ type: 'object', 'x-kubernetes-embedded-resource': true }), b: S({ type: 'object' }) }),
  ],
  [
    'compositions added, removed, changed, unchanged',
    S({
      type: 'object',
      anyOf: [{ required: ['a'] }],
      allOf: [{ required: ['b'] }],
      not: { required: ['c'] },
    }),
    S({
      type: 'object',
      oneOf: [{ required: ['a'] }],
      allOf: [{ required: ['c'] }],
      not: { required: ['c'] },
    }),
  ],
  [
    'an unknown keyword, a known one of the wrong shape',
    S({ type: 'string', 'x-kubernetes-foo': 1, minLength: 1 }),
    S({ type: 'string', 'x-kubernetes-foo': 2, minLength: 'two' }),
  ],
  [
    'a known keyword of the wrong shape on both sides, unchanged',
    S({ type: 'string', maxLength: 'x' }),
    S({ type: 'string', maxLength: 'x' }),
  ],
  [
    'required: new, existing became, no longer, removed field no longer required',
    obj(
      { a: S({ type: 'string' }), b: S({ type: 'string' }), c: S({ type: 'string' }) },
      { required: ['b', 'c'] },
    ),
    obj(
      { a: S({ type: 'string' }), b: S({ type: 'string' }), n: S({ type: 'string' }) },
      { required: ['a', 'n'] },
    ),
  ],
  [
    'fields removed and added, sorted by path, odd names quoted',
    obj({ z: S({ type: 'string' }), 'a.b': S({ type: 'string' }) }),
    obj({ y: S({ type: 'string' }), 'x-y': S({ type: 'string' }), '1a': S({ type: 'string' }) }),
  ],
  [
    'items and additionalProperties walked, at the root and below',
    S({
      type: 'object',
      properties: {
        l: S({ type: 'array', items: S({ type: 'string' }) }),
        m: S({ type: 'object', additionalProperties: S({ type: 'string' }) }),
      },
      additionalProperties: S({ type: 'string' }),
    }),
    S({
      type: 'object',
      properties: {
        l: S({ type: 'array', items: S({ type: 'integer' }) }),
        m: S({ type: 'object', additionalProperties: S({ type: 'integer' }) }),
      },
      additionalProperties: S({ type: 'integer' }),
    }),
  ],
  [
    'items of a list at the root',
    S({ type: 'array', items: S({ type: 'string' }) }),
    S({ type: 'array', items: S({ type: 'integer' }) }),
  ],
  [
    'additionalProperties: schema → true, false → absent',
    obj({
      a: S({ type: 'object', additionalProperties: S({ type: 'string' }) }),
      b: S({ type: 'object', additionalProperties: false }),
    }),
    obj({ a: S({ type: 'object', additionalProperties: true }), b: S({ type: 'object' }) }),
  ],
];

const SCHEMA_EXPECTED: Readonly<Record<string, SchemaChange[]>> = {
  'type changed, nothing below compared': [
    { path: '.', severity: 'breaking', rule: 'type', message: 'type changed', old: 'object', new: 'string' },
  ],
  'int-or-string and preserved-unknown are types of their own': [
    {
      path: '.',
      severity: 'breaking',
      rule: 'type',
      message: 'type changed',
      old: 'int-or-string',
      new: 'any',
    },
  ],
  'no type on either side: unspecified': [
    { path: '.', severity: 'safe', rule: 'description', message: 'description changed', old: 'a', new: 'b' },
  ],
  'description added, removed': [
    { path: '.a', severity: 'safe', rule: 'description', message: 'description changed', new: 'a' },
    { path: '.b', severity: 'safe', rule: 'description', message: 'description changed', old: 'b' },
  ],
  'default added, removed, changed, unchanged': [
    { path: '.a', severity: 'breaking', rule: 'default', message: 'default added', new: 'x' },
    { path: '.b', severity: 'breaking', rule: 'default', message: 'default removed', old: 'x' },
    { path: '.c', severity: 'breaking', rule: 'default', message: 'default changed', old: 'x', new: 'y' },
  ],
  'enum added, removed, values removed, values added, same values reordered': [
    { path: '.a', severity: 'breaking', rule: 'enum', message: 'enum constraint added', new: ['x'] },
    { path: '.b', severity: 'safe', rule: 'enum', message: 'enum constraint removed', old: ['x'] },
    {
      path: '.c',
      severity: 'breaking',
      rule: 'enum',
      message: 'enum values removed: "y"',
      old: ['x', 'y'],
      new: ['x', 'z'],
    },
    {
      path: '.d',
      severity: 'safe',
      rule: 'enum',
      message: 'enum values added: "y", "z"',
      old: ['x'],
      new: ['x', 'y', 'z'],
    },
  ],
  'enum of objects compared by value': [
    {
      path: '.',
      severity: 'safe',
      rule: 'enum',
      message: 'enum values added: {"a":2}',
      old: [{ a: 1 }],
      new: [{ a: 1 }, { a: 2 }],
    },
  ],
  'lower bounds added, removed, raised, lowered': [
    { path: '.a', severity: 'breaking', rule: 'minimum', message: 'minimum added', new: 1 },
    { path: '.b', severity: 'safe', rule: 'minimum', message: 'minimum removed', old: 1 },
    { path: '.c', severity: 'breaking', rule: 'minLength', message: 'minLength raised', old: 1, new: 2 },
    { path: '.d', severity: 'safe', rule: 'minItems', message: 'minItems lowered', old: 3, new: 2 },
  ],
  'upper bounds added, removed, lowered, raised': [
    { path: '.a', severity: 'breaking', rule: 'maximum', message: 'maximum added', new: 9 },
    { path: '.b', severity: 'safe', rule: 'maximum', message: 'maximum removed', old: 1 },
    { path: '.c', severity: 'breaking', rule: 'maxLength', message: 'maxLength lowered', old: 5, new: 4 },
    { path: '.d', severity: 'safe', rule: 'maxItems', message: 'maxItems raised', old: 3, new: 4 },
  ],
  'exclusive bounds: made exclusive, made inclusive, shown as exclusive': [
    {
      path: '.a',
      severity: 'breaking',
      rule: 'minimum',
      message: 'minimum made exclusive',
      old: 1,
      new: '1 (exclusive)',
    },
    {
      path: '.b',
      severity: 'safe',
      rule: 'maximum',
      message: 'maximum made inclusive',
      old: '1 (exclusive)',
      new: 1,
    },
    {
      path: '.c',
      severity: 'breaking',
      rule: 'minimum',
      message: 'minimum raised',
      old: '1 (exclusive)',
      new: '2 (exclusive)',
    },
    {
      path: '.d',
      severity: 'breaking',
      rule: 'maximum',
      message: 'maximum made exclusive',
      old: 5,
      new: '5 (exclusive)',
    },
  ],
  'exclusive flags of other bounds are not read': [],
  'pattern and format added, changed, removed': [
    { path: '.a', severity: 'risky', rule: 'pattern', message: 'pattern added', new: 'x' },
    { path: '.a', severity: 'risky', rule: 'format', message: 'format added', new: 'uri' },
    { path: '.b', severity: 'risky', rule: 'pattern', message: 'pattern changed', old: 'x', new: 'y' },
    { path: '.c', severity: 'safe', rule: 'format', message: 'format removed', old: 'date' },
  ],
  'nullable and preserve-unknown-fields set and cleared': [
    { path: '.a', severity: 'safe', rule: 'nullable', message: 'nullable set', old: false, new: true },
    {
      path: '.b',
      severity: 'breaking',
      rule: 'nullable',
      message: 'null no longer accepted',
      old: true,
      new: false,
    },
    {
      path: '.c',
      severity: 'safe',
      rule: 'preserveUnknownFields',
      message: 'preserveUnknownFields set',
      old: false,
      new: true,
    },
    {
      path: '.d',
      severity: 'breaking',
      rule: 'preserveUnknownFields',
      message: 'unknown fields no longer kept: the API server prunes them from stored objects',
      old: true,
      new: false,
    },
  ],
  'CEL rules added, removed, changed, message changed': [
    {
      path: '.',
      severity: 'safe',
      rule: 'cel',
      message: "CEL rule's message changed (self.a > 0)",
      old: { message: 'a' },
      new: { message: 'A' },
    },
    {
      path: '.',
      severity: 'risky',
      rule: 'cel',
      message: 'CEL rule changed',
      old: 'self.b > 0',
      new: 'self.b > 1',
    },
    {
      path: '.',
      severity: 'risky',
      rule: 'cel',
      message: 'CEL rule changed',
      old: 'self.c > 0',
      new: 'self.d > 0',
    },
    { path: '.', severity: 'risky', rule: 'cel', message: 'CEL rule added', new: 'self.e > 0' },
  ],
  'CEL rules removed beyond the pairs': [
    { path: '.', severity: 'safe', rule: 'cel', message: 'CEL rule removed', old: 'self.a > 0' },
    { path: '.', severity: 'safe', rule: 'cel', message: 'CEL rule removed', old: 'self.b > 0' },
  ],
  'CEL rules only on the new side, only on the old side': [
    { path: '.a', severity: 'risky', rule: 'cel', message: 'CEL rule added', new: 'true' },
    { path: '.b', severity: 'safe', rule: 'cel', message: 'CEL rule removed', old: 'true' },
  ],
  'title, example and externalDocs': [
    { path: '.', severity: 'safe', rule: 'description', message: 'title changed', old: 'a', new: 'b' },
    { path: '.', severity: 'safe', rule: 'description', message: 'example changed', new: 'e' },
  ],
  'multipleOf added, removed, loosened, changed': [
    { path: '.a', severity: 'breaking', rule: 'multipleOf', message: 'multipleOf added', new: 2 },
    { path: '.b', severity: 'safe', rule: 'multipleOf', message: 'multipleOf removed', old: 2 },
    {
      path: '.c',
      severity: 'safe',
      rule: 'multipleOf',
      message: 'multipleOf loosened (divides the old one)',
      old: 4,
      new: 2,
    },
    {
      path: '.d',
      severity: 'breaking',
      rule: 'multipleOf',
      message: 'multipleOf changed (existing multiples of the old value are refused)',
      old: 4,
      new: 3,
    },
  ],
  'uniqueItems set and cleared': [
    {
      path: '.a',
      severity: 'breaking',
      rule: 'uniqueItems',
      message: 'items must be unique now',
      old: false,
      new: true,
    },
    {
      path: '.b',
      severity: 'safe',
      rule: 'uniqueItems',
      message: 'items no longer need to be unique',
      old: true,
      new: false,
    },
  ],
  'list types: set, map, atomic': [
    {
      path: '.a',
      severity: 'breaking',
      rule: 'listType',
      message: 'list became a set: objects whose items repeat are refused, server-side apply merges items',
      old: 'atomic',
      new: 'set',
    },
    {
      path: '.b',
      severity: 'breaking',
      rule: 'listType',
      message:
        'list became a map: objects whose items repeat a key are refused, server-side apply merges items',
      old: 'set',
      new: 'map',
    },
    {
      path: '.c',
      severity: 'risky',
      rule: 'listType',
      message: 'list became atomic: server-side apply replaces it whole instead of merging items',
      old: 'set',
      new: 'atomic',
    },
  ],
  'list-map keys changed, reordered, added': [
    {
      path: '.a',
      severity: 'breaking',
      rule: 'listMapKeys',
      message:
        'list-map keys changed: which items count as the same changes (duplicates refused, merges differ)',
      old: ['k'],
      new: ['j'],
    },
    {
      path: '.c',
      severity: 'breaking',
      rule: 'listMapKeys',
      message:
        'list-map keys changed: which items count as the same changes (duplicates refused, merges differ)',
      old: [],
      new: ['k'],
    },
  ],
  'set keys are not compared': [],
  'map types: atomic, granular, absent is granular': [
    {
      path: '.a',
      severity: 'risky',
      rule: 'mapType',
      message: 'map became atomic: server-side apply replaces it whole instead of merging keys',
      old: 'granular',
      new: 'atomic',
    },
    {
      path: '.b',
      severity: 'risky',
      rule: 'mapType',
      message: 'map became granular: server-side apply merges it key by key',
      old: 'atomic',
      new: 'granular',
    },
  ],
  'embedded resource set and cleared': [
    {
      path: '.a',
      severity: 'breaking',
      rule: 'embeddedResource',
      message:
        'became an embedded resource: objects without apiVersion and kind are refused, metadata is validated',
      old: false,
      new: true,
    },
    {
      path: '.b',
      severity: 'risky',
      rule: 'embeddedResource',
      message: 'no longer an embedded resource: apiVersion, kind and metadata are pruned unless declared',
      old: true,
      new: false,
    },
  ],
  'compositions added, removed, changed, unchanged': [
    { path: '.', severity: 'breaking', rule: 'oneOf', message: 'oneOf added', new: [{ required: ['a'] }] },
    { path: '.', severity: 'safe', rule: 'anyOf', message: 'anyOf removed', old: [{ required: ['a'] }] },
    {
      path: '.',
      severity: 'risky',
      rule: 'allOf',
      message: 'allOf changed',
      old: [{ required: ['b'] }],
      new: [{ required: ['c'] }],
    },
  ],
  'an unknown keyword, a known one of the wrong shape': [
    {
      path: '.',
      severity: 'risky',
      rule: 'unhandled',
      message: 'x-kubernetes-foo changed (no rule judges it: check by hand)',
      old: 1,
      new: 2,
    },
    {
      path: '.',
      severity: 'risky',
      rule: 'unhandled',
      message: 'minLength changed (no rule judges it: check by hand)',
      old: 1,
      new: 'two',
    },
  ],
  'a known keyword of the wrong shape on both sides, unchanged': [],
  'required: new, existing became, no longer, removed field no longer required': [
    {
      severity: 'breaking',
      rule: 'required',
      path: '.a',
      message: 'existing field became required',
      old: 'optional',
      new: 'required',
    },
    {
      severity: 'breaking',
      rule: 'required',
      path: '.n',
      message: 'new required field',
      old: 'optional',
      new: 'required',
    },
    {
      severity: 'safe',
      rule: 'required',
      path: '.b',
      message: 'field no longer required',
      old: 'required',
      new: 'optional',
    },
    { severity: 'breaking', rule: 'existingFieldRemoval', path: '.c', message: 'field removed' },
  ],
  'fields removed and added, sorted by path, odd names quoted': [
    { severity: 'safe', rule: 'fieldAdded', path: '["1a"]', message: 'optional field added' },
    { severity: 'breaking', rule: 'existingFieldRemoval', path: '["a.b"]', message: 'field removed' },
    { severity: 'safe', rule: 'fieldAdded', path: '.x-y', message: 'optional field added' },
    { severity: 'safe', rule: 'fieldAdded', path: '.y', message: 'optional field added' },
    { severity: 'breaking', rule: 'existingFieldRemoval', path: '.z', message: 'field removed' },
  ],
  'items and additionalProperties walked, at the root and below': [
    {
      path: '.l[*]',
      severity: 'breaking',
      rule: 'type',
      message: 'type changed',
      old: 'string',
      new: 'integer',
    },
    {
      path: '.m.*',
      severity: 'breaking',
      rule: 'type',
      message: 'type changed',
      old: 'string',
      new: 'integer',
    },
    {
      path: '.*',
      severity: 'breaking',
      rule: 'type',
      message: 'type changed',
      old: 'string',
      new: 'integer',
    },
  ],
  'items of a list at the root': [
    {
      path: '[*]',
      severity: 'breaking',
      rule: 'type',
      message: 'type changed',
      old: 'string',
      new: 'integer',
    },
  ],
  'additionalProperties: schema \u2192 true, false \u2192 absent': [
    {
      path: '.a',
      severity: 'risky',
      rule: 'unhandled',
      message: 'additionalProperties changed (no rule judges it: check by hand)',
      old: { type: 'string' },
      new: true,
    },
    {
      path: '.b',
      severity: 'risky',
      rule: 'unhandled',
      message: 'additionalProperties changed (no rule judges it: check by hand)',
      old: false,
    },
  ],
};

const schema = (props: Record<string, Schema> = {}): Schema => obj({ spec: obj(props) });
const V = (name: string, extra: Record<string, unknown> = {}): CrdDocumentVersion =>
  ({
    name,
    served: true,
    storage: false,
    schema: { openAPIV3Schema: schema() },
    ...extra,
  }) as CrdDocumentVersion;
const CRD = (
  versions: CrdDocumentVersion[],
  spec: Record<string, unknown> = {},
  rest: Record<string, unknown> = {},
): CrdDocument =>
  ({
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', plural: 'widgets' },
      scope: 'Namespaced',
      versions,
      ...spec,
    },
    ...rest,
  }) as CrdDocument;
const v1 = (extra: Record<string, unknown> = {}) => V('v1', { storage: true, ...extra });

const CRD_CASES: [string, CrdDocument[], CrdDocument[]][] = [
  [
    'a CRD removed, one added, sorted by name',
    [CRD([v1()]), { ...CRD([v1()]), metadata: { name: 'b.example.com' } } as CrdDocument],
    [{ ...CRD([v1()]), metadata: { name: 'a.example.com' } } as CrdDocument, CRD([v1()])],
  ],
  ['scope changed', [CRD([v1()])], [CRD([v1()], { scope: 'Cluster' })]],
  [
    'kind and plural changed; listKind follows the kind',
    [CRD([v1()])],
    [CRD([v1()], { names: { kind: 'Gadget', plural: 'gadgets' } })],
  ],
  [
    'listKind given as its default is no change; singular given as its default neither',
    [CRD([v1()])],
    [
      CRD([v1()], {
        names: { kind: 'Widget', plural: 'widgets', listKind: 'WidgetList', singular: 'widget' },
      }),
    ],
  ],
  [
    'listKind and singular changed explicitly',
    [
      CRD([v1()], {
        names: { kind: 'Widget', plural: 'widgets', listKind: 'WidgetList', singular: 'widget' },
      }),
    ],
    [CRD([v1()], { names: { kind: 'Widget', plural: 'widgets', listKind: 'Widgets', singular: 'wdg' } })],
  ],
  [
    'short names and categories removed, added; an unknown names key',
    [
      CRD([v1()], {
        names: { kind: 'Widget', plural: 'widgets', shortNames: ['w', 'wd'], categories: ['all'] },
      }),
    ],
    [
      CRD([v1()], {
        names: {
          kind: 'Widget',
          plural: 'widgets',
          shortNames: ['w'],
          categories: ['all', 'toys'],
          other: 1,
        },
      }),
    ],
  ],
  [
    'short names added only',
    [CRD([v1()])],
    [CRD([v1()], { names: { kind: 'Widget', plural: 'widgets', shortNames: ['w'] } })],
  ],
  [
    'conversion webhook added',
    [CRD([v1()])],
    [
      CRD([v1()], {
        conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 's' } } } },
      }),
    ],
  ],
  [
    'conversion webhook removed',
    [CRD([v1()], { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } } })],
    [CRD([v1()], { conversion: { strategy: 'None' } })],
  ],
  [
    'conversion webhook configuration changed; an unknown conversion key',
    [CRD([v1()], { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } } })],
    [
      CRD([v1()], {
        conversion: {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1', 'v1beta1'] },
          extra: true,
        },
      }),
    ],
  ],
  [
    'conversion webhook configuration removed with the strategy unchanged',
    [CRD([v1()], { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } } })],
    [CRD([v1()], { conversion: { strategy: 'Webhook' } })],
  ],
  [
    'an unknown spec key; group changes are left to other rules',
    [CRD([v1()])],
    [CRD([v1()], { preserveUnknownFields: false })],
  ],
  [
    'versions removed: storage, listed in storedVersions, served, unserved',
    [
      CRD(
        [v1(), V('v2'), V('v3', { served: false }), V('v4', { served: false })],
        {},
        { status: { storedVersions: ['v1', 'v2'] } },
      ),
    ],
    [CRD([V('v5', { storage: true })])],
  ],
  [
    'a version added, one no longer served, one served again',
    [CRD([v1(), V('v2', { served: false })])],
    [CRD([v1({ served: false }), V('v2'), V('v3')])],
  ],
  ['the storage version moved', [CRD([v1(), V('v2')])], [CRD([V('v1'), V('v2', { storage: true })])]],
  [
    'the old storage version removed: only its removal is said',
    [CRD([v1(), V('v2')])],
    [CRD([V('v2', { storage: true })])],
  ],
  [
    'deprecated, its warning, and back',
    [CRD([v1(), V('v2', { deprecated: true, deprecationWarning: 'old' })])],
    [CRD([v1({ deprecated: true, deprecationWarning: 'use v2' }), V('v2')])],
  ],
  [
    'subresources: status and scale removed',
    [
      CRD([
        v1({
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
          },
        }),
      ]),
    ],
    [CRD([v1()])],
  ],
  [
    'subresources: status and scale added',
    [CRD([v1()])],
    [
      CRD([
        v1({
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
          },
        }),
      ]),
    ],
  ],
  [
    'subresources: scale changed, status unchanged, an unknown one',
    [
      CRD([
        v1({
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
          },
        }),
      ]),
    ],
    [
      CRD([
        v1({
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.replicas' },
            other: {},
          },
        }),
      ]),
    ],
  ],
  [
    'printer columns and selectable fields removed',
    [
      CRD([
        v1({
          additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec.a' }],
          selectableFields: [{ jsonPath: '.spec.a' }, { jsonPath: '.spec.b' }],
        }),
      ]),
    ],
    [CRD([v1({ selectableFields: [{ jsonPath: '.spec.b' }, { jsonPath: '.spec.c' }] })])],
  ],
  ['selectable fields added', [CRD([v1()])], [CRD([v1({ selectableFields: [{ jsonPath: '.spec.a' }] })])]],
  [
    'an unknown version key and schema key; a schema removed',
    [CRD([v1({ other: 1, schema: { openAPIV3Schema: schema(), extra: 1 } }), V('v2')])],
    [CRD([v1({ other: 2, schema: { openAPIV3Schema: schema() } }), V('v2', { schema: undefined })])],
  ],
  [
    'served versions differ: risky without a webhook, the old difference not repeated, descriptions not compared',
    [
      CRD([
        v1({ schema: { openAPIV3Schema: schema({ a: S({ type: 'string' }) }) } }),
        V('v1beta1', { schema: { openAPIV3Schema: schema({ a: S({ type: 'integer' }) }) } }),
      ]),
    ],
    [
      CRD([
        v1({
          schema: {
            openAPIV3Schema: schema({ a: S({ type: 'string', description: 'x' }), b: S({ type: 'string' }) }),
          },
        }),
        V('v1beta1', {
          schema: { openAPIV3Schema: schema({ a: S({ type: 'integer' }), b: S({ type: 'boolean' }) }) },
        }),
      ]),
    ],
  ],
  [
    'served versions differ: safe with a webhook; an unserved version is not paired',
    [CRD([v1()])],
    [
      CRD(
        [
          v1({ schema: { openAPIV3Schema: schema({ b: S({ type: 'string' }) }) } }),
          V('v2alpha1', { schema: { openAPIV3Schema: schema({ b: S({ type: 'boolean' }) }) } }),
          V('v3', { served: false, schema: { openAPIV3Schema: schema({ b: S({ type: 'number' }) }) } }),
        ],
        { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } } },
      ),
    ],
  ],
];

const CRD_EXPECTED: Readonly<Record<string, Finding[]>> = {
  'a CRD removed, one added, sorted by name': [
    { severity: 'safe', rule: 'crdAdded', crd: 'a.example.com', message: 'CRD added' },
    {
      severity: 'breaking',
      rule: 'crdRemoved',
      crd: 'b.example.com',
      message: 'CRD removed (deleting a CRD deletes every object of it)',
    },
  ],
  'scope changed': [
    {
      severity: 'breaking',
      rule: 'scope',
      crd: 'widgets.example.com',
      message: 'scope changed',
      old: 'Namespaced',
      new: 'Cluster',
    },
  ],
  'kind and plural changed; listKind follows the kind': [
    {
      severity: 'breaking',
      rule: 'names',
      crd: 'widgets.example.com',
      path: 'spec.names.kind',
      message: 'kind changed',
      old: 'Widget',
      new: 'Gadget',
    },
    {
      severity: 'breaking',
      rule: 'names',
      crd: 'widgets.example.com',
      path: 'spec.names.listKind',
      message: 'listKind changed',
    },
    {
      severity: 'risky',
      rule: 'names',
      crd: 'widgets.example.com',
      path: 'spec.names.singular',
      message: 'singular name changed (kubectl commands using the old one fail)',
      old: 'widget',
      new: 'gadget',
    },
  ],
  'listKind given as its default is no change; singular given as its default neither': [],
  'listKind and singular changed explicitly': [
    {
      severity: 'breaking',
      rule: 'names',
      crd: 'widgets.example.com',
      path: 'spec.names.listKind',
      message: 'listKind changed',
      old: 'WidgetList',
      new: 'Widgets',
    },
    {
      severity: 'risky',
      rule: 'names',
      crd: 'widgets.example.com',
      path: 'spec.names.singular',
      message: 'singular name changed (kubectl commands using the old one fail)',
      old: 'widget',
      new: 'wdg',
    },
  ],
  'short names and categories removed, added; an unknown names key': [
    {
      severity: 'risky',
      rule: 'names',
      crd: 'widgets.example.com',
      path: 'spec.names.shortNames',
      message: 'shortNames removed: wd (kubectl commands using them fail)',
      old: ['w', 'wd'],
      new: ['w'],
    },
    {
      severity: 'safe',
      rule: 'names',
      crd: 'widgets.example.com',
      path: 'spec.names.categories',
      message: 'categories added: toys',
      old: ['all'],
      new: ['all', 'toys'],
    },
    {
      crd: 'widgets.example.com',
      path: 'spec.names.other',
      severity: 'risky',
      rule: 'unhandled',
      message: 'spec.names.other changed (no rule judges it: check by hand)',
      new: 1,
    },
  ],
  'short names added only': [
    {
      severity: 'safe',
      rule: 'names',
      crd: 'widgets.example.com',
      path: 'spec.names.shortNames',
      message: 'shortNames added: w',
      old: [],
      new: ['w'],
    },
  ],
  'conversion webhook added': [
    {
      severity: 'risky',
      rule: 'conversion',
      crd: 'widgets.example.com',
      path: 'spec.conversion.strategy',
      message:
        'conversion webhook added: every read in another version than the stored one calls it (it must be deployed first)',
      old: 'None',
      new: 'Webhook',
    },
  ],
  'conversion webhook removed': [
    {
      severity: 'risky',
      rule: 'conversion',
      crd: 'widgets.example.com',
      path: 'spec.conversion.strategy',
      message:
        'conversion webhook removed: versions are converted by changing apiVersion only, fields that differ are lost',
      old: 'Webhook',
      new: 'None',
    },
  ],
  'conversion webhook configuration changed; an unknown conversion key': [
    {
      severity: 'risky',
      rule: 'conversion',
      crd: 'widgets.example.com',
      path: 'spec.conversion.webhook',
      message: 'conversion webhook configuration changed',
      old: { conversionReviewVersions: ['v1'] },
      new: { conversionReviewVersions: ['v1', 'v1beta1'] },
    },
    {
      crd: 'widgets.example.com',
      path: 'spec.conversion.extra',
      severity: 'risky',
      rule: 'unhandled',
      message: 'spec.conversion.extra changed (no rule judges it: check by hand)',
      new: true,
    },
  ],
  'conversion webhook configuration removed with the strategy unchanged': [
    {
      severity: 'risky',
      rule: 'conversion',
      crd: 'widgets.example.com',
      path: 'spec.conversion.webhook',
      message: 'conversion webhook configuration changed',
      old: { conversionReviewVersions: ['v1'] },
    },
  ],
  'an unknown spec key; group changes are left to other rules': [
    {
      crd: 'widgets.example.com',
      path: 'spec.preserveUnknownFields',
      severity: 'risky',
      rule: 'unhandled',
      message: 'spec.preserveUnknownFields changed (no rule judges it: check by hand)',
      new: false,
    },
  ],
  'versions removed: storage, listed in storedVersions, served, unserved': [
    {
      severity: 'breaking',
      rule: 'storedVersionRemoval',
      crd: 'widgets.example.com',
      version: 'v1',
      message: 'storage version removed (objects stored in it can no longer be read)',
    },
    {
      severity: 'breaking',
      rule: 'storedVersionRemoval',
      crd: 'widgets.example.com',
      version: 'v2',
      message:
        "version removed while in the CRD's status.storedVersions (objects stored in it can no longer be read)",
    },
    {
      severity: 'risky',
      rule: 'storedVersionRemoval',
      crd: 'widgets.example.com',
      version: 'v3',
      message: "unserved version removed: fails if it is still in the CRD's status.storedVersions",
    },
    {
      severity: 'risky',
      rule: 'storedVersionRemoval',
      crd: 'widgets.example.com',
      version: 'v4',
      message: "unserved version removed: fails if it is still in the CRD's status.storedVersions",
    },
    {
      severity: 'safe',
      rule: 'versionAdded',
      crd: 'widgets.example.com',
      version: 'v5',
      message: 'version added',
    },
  ],
  'a version added, one no longer served, one served again': [
    {
      severity: 'breaking',
      rule: 'servedVersionRemoval',
      crd: 'widgets.example.com',
      version: 'v1',
      message: 'version no longer served (clients using it fail)',
      old: 'served',
      new: 'not served',
    },
    {
      crd: 'widgets.example.com',
      version: 'v2',
      severity: 'safe',
      rule: 'served',
      path: '.',
      message: 'version now served',
      old: false,
      new: true,
    },
    {
      severity: 'safe',
      rule: 'versionAdded',
      crd: 'widgets.example.com',
      version: 'v3',
      message: 'version added',
    },
  ],
  'the storage version moved': [
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'risky',
      rule: 'storage',
      path: '.',
      message: 'no longer the storage version: keep it until stored objects are migrated',
      old: true,
      new: false,
    },
    {
      crd: 'widgets.example.com',
      version: 'v2',
      severity: 'risky',
      rule: 'storage',
      path: '.',
      message:
        'now the storage version: objects written from now on are stored in it (migrate stored objects before removing the old one)',
      old: false,
      new: true,
    },
  ],
  'the old storage version removed: only its removal is said': [
    {
      severity: 'breaking',
      rule: 'storedVersionRemoval',
      crd: 'widgets.example.com',
      version: 'v1',
      message: 'storage version removed (objects stored in it can no longer be read)',
    },
  ],
  'deprecated, its warning, and back': [
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'safe',
      rule: 'deprecated',
      path: '.',
      message: 'version deprecated (clients get a warning)',
      old: false,
      new: true,
    },
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'safe',
      rule: 'deprecated',
      path: '.',
      message: 'deprecation warning changed',
      new: 'use v2',
    },
    {
      crd: 'widgets.example.com',
      version: 'v2',
      severity: 'safe',
      rule: 'deprecated',
      path: '.',
      message: 'version no longer deprecated',
      old: true,
      new: false,
    },
    {
      crd: 'widgets.example.com',
      version: 'v2',
      severity: 'safe',
      rule: 'deprecated',
      path: '.',
      message: 'deprecation warning changed',
      old: 'old',
    },
  ],
  'subresources: status and scale removed': [
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'breaking',
      rule: 'subresources',
      path: 'subresources.status',
      message: 'status subresource removed (clients writing /status fail)',
      old: {},
    },
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'breaking',
      rule: 'subresources',
      path: 'subresources.scale',
      message: 'scale subresource removed (clients writing /scale fail)',
      old: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    },
  ],
  'subresources: status and scale added': [
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'risky',
      rule: 'subresources',
      path: 'subresources.status',
      message:
        'status subresource added (updates of the object no longer change its status: controllers must write /status)',
      new: {},
    },
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'safe',
      rule: 'subresources',
      path: 'subresources.scale',
      message: 'scale subresource added',
      new: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    },
  ],
  'subresources: scale changed, status unchanged, an unknown one': [
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'risky',
      rule: 'subresources',
      path: 'subresources.scale',
      message: 'scale subresource changed (autoscalers and kubectl scale read other fields)',
      old: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
      new: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.replicas' },
    },
    {
      crd: 'widgets.example.com',
      version: 'v1',
      path: 'subresources.other',
      severity: 'risky',
      rule: 'unhandled',
      message: 'subresources.other changed (no rule judges it: check by hand)',
      new: {},
    },
  ],
  'printer columns and selectable fields removed': [
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'safe',
      rule: 'printerColumns',
      path: 'additionalPrinterColumns',
      message: 'printer columns changed (what kubectl get prints)',
      old: [{ name: 'A', type: 'string', jsonPath: '.spec.a' }],
      new: [],
    },
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'breaking',
      rule: 'selectableFields',
      path: 'selectableFields',
      message: 'selectable fields removed: .spec.a (field selectors using them fail)',
      old: ['.spec.a', '.spec.b'],
      new: ['.spec.b', '.spec.c'],
    },
  ],
  'selectable fields added': [
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'safe',
      rule: 'selectableFields',
      path: 'selectableFields',
      message: 'selectable fields added: .spec.a',
      old: [],
      new: ['.spec.a'],
    },
  ],
  'an unknown version key and schema key; a schema removed': [
    {
      crd: 'widgets.example.com',
      version: 'v1',
      path: 'other',
      severity: 'risky',
      rule: 'unhandled',
      message: 'other changed (no rule judges it: check by hand)',
      old: 1,
      new: 2,
    },
    {
      crd: 'widgets.example.com',
      version: 'v1',
      path: 'schema.extra',
      severity: 'risky',
      rule: 'unhandled',
      message: 'schema.extra changed (no rule judges it: check by hand)',
      old: 1,
    },
    {
      crd: 'widgets.example.com',
      version: 'v2',
      path: '.',
      severity: 'risky',
      rule: 'unhandled',
      message: 'schema.openAPIV3Schema changed (no rule judges it: check by hand)',
      old: 'present',
    },
  ],
  'served versions differ: risky without a webhook, the old difference not repeated, descriptions not compared':
    [
      {
        crd: 'widgets.example.com',
        version: 'v1',
        path: '.spec.a',
        severity: 'safe',
        rule: 'description',
        message: 'description changed',
        new: 'x',
      },
      {
        crd: 'widgets.example.com',
        version: 'v1',
        severity: 'safe',
        rule: 'fieldAdded',
        path: '.spec.b',
        message: 'optional field added',
      },
      {
        crd: 'widgets.example.com',
        version: 'v1beta1',
        severity: 'safe',
        rule: 'fieldAdded',
        path: '.spec.b',
        message: 'optional field added',
      },
      {
        severity: 'risky',
        rule: 'servedVersionDifference',
        crd: 'widgets.example.com',
        version: 'v1beta1 -> v1',
        path: '.spec.b',
        message:
          'served versions differ (type): type changed; conversion is None: the value is lost or refused when read or written through the other version',
        old: 'boolean',
        new: 'string',
      },
    ],
  'served versions differ: safe with a webhook; an unserved version is not paired': [
    {
      severity: 'risky',
      rule: 'conversion',
      crd: 'widgets.example.com',
      path: 'spec.conversion.strategy',
      message:
        'conversion webhook added: every read in another version than the stored one calls it (it must be deployed first)',
      old: 'None',
      new: 'Webhook',
    },
    {
      crd: 'widgets.example.com',
      version: 'v1',
      severity: 'safe',
      rule: 'fieldAdded',
      path: '.spec.b',
      message: 'optional field added',
    },
    {
      severity: 'safe',
      rule: 'versionAdded',
      crd: 'widgets.example.com',
      version: 'v2alpha1',
      message: 'version added',
    },
    {
      severity: 'safe',
      rule: 'versionAdded',
      crd: 'widgets.example.com',
      version: 'v3',
      message: 'version added',
    },
    {
      severity: 'safe',
      rule: 'servedVersionDifference',
      crd: 'widgets.example.com',
      version: 'v2alpha1 -> v1',
      path: '.spec.b',
      message: 'served versions differ (type): type changed; the conversion webhook must carry it',
      old: 'boolean',
      new: 'string',
    },
  ],
};

describe('crd diff: schema findings in full', () => {
  for (const [name, o, n] of SCHEMA_CASES)
    it(name, () => assert.deepEqual(diffSchemas(o, n), SCHEMA_EXPECTED[name]));
  it('every case has its expected findings', () =>
    assert.deepEqual(
      Object.keys(SCHEMA_EXPECTED),
      SCHEMA_CASES.map(([name]) => name),
    ));
});

describe('crd diff: CRD findings in full', () => {
  for (const [name, o, n] of CRD_CASES) it(name, () => assert.deepEqual(diffCrds(o, n), CRD_EXPECTED[name]));
  it('every case has its expected findings', () =>
    assert.deepEqual(
      Object.keys(CRD_EXPECTED),
      CRD_CASES.map(([name]) => name),
    ));
});

describe('crd diff acknowledgements: reading the file, matching findings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-acks-mutants-'));
  mkdirSync(join(dir, '.op-gen'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const read = (text: string) => {
    writeFileSync(join(dir, '.op-gen/crd-diff.yaml'), text);
    return readAcknowledgements(dir, undefined);
  };
  const refused = (text: string): string => {
    let message = '';
    assert.throws(
      () => read(text),
      (err: unknown) => {
        assert.ok(err instanceof OpGenError, String(err));
        message = err.message;
        return true;
      },
    );
    return message;
  };

  it('reads each entry with its position, version and path only when given', () => {
    assert.deepEqual(
      read(`acknowledged:
  - crd: a.example.com
    rule: maximum
    reason: fleet checked
  - crd: b.example.com
    version: v1
    path: .spec.a
    rule: enum
    reason: values unused
`),
      [
        { crd: 'a.example.com', rule: 'maximum', reason: 'fleet checked', index: 1 },
        {
          crd: 'b.example.com',
          rule: 'enum',
          reason: 'values unused',
          index: 2,
          version: 'v1',
          path: '.spec.a',
        },
      ],
    );
  });

  it('an empty file acknowledges nothing; a named file that is missing is an error', () => {
    assert.deepEqual(read(''), []);
    assert.throws(
      () => readAcknowledgements(dir, 'acks.yaml'),
      (err: unknown) => err instanceof OpGenError && err.message === 'acks.yaml: no such file',
    );
  });

  it('says what is wrong, every entry at once, one problem a line', () => {
    assert.match(refused('acknowledged: [\n'), /^\.op-gen\/crd-diff\.yaml: not valid YAML \([^\n]{8,}\)$/);
    assert.equal(
      refused('- crd: a\n'),
      '.op-gen/crd-diff.yaml: expected `acknowledged:` with a list of { crd, version, path, rule, reason }',
    );
    assert.equal(
      refused(`acknowledged:
  - just text
  - [1]
  - null
  - crd: ''
    rule: enum
    reason: r
    version: 1
    path: [a]
  - crd: a
    rule: ''
    reason: r
  - crd: a
    rule: 5
    reason: r
`),
      [
        '.op-gen/crd-diff.yaml: acknowledged[0]: expected a mapping with crd, rule and reason',
        '.op-gen/crd-diff.yaml: acknowledged[1]: expected a mapping with crd, rule and reason',
        '.op-gen/crd-diff.yaml: acknowledged[2]: expected a mapping with crd, rule and reason',
        '.op-gen/crd-diff.yaml: acknowledged[3]: `crd` is required (a string)',
        '.op-gen/crd-diff.yaml: acknowledged[3]: `version` must be a string',
        '.op-gen/crd-diff.yaml: acknowledged[3]: `path` must be a string',
        '.op-gen/crd-diff.yaml: acknowledged[4]: `rule` is required (a string)',
        '.op-gen/crd-diff.yaml: acknowledged[5]: `rule` is required (a string)',
      ].join('\n'),
    );
    assert.match(
      refused('acknowledged:\n  - { crd: a, rule: nope, reason: r, extra: 1 }\n'),
      /^\.op-gen\/crd-diff\.yaml: acknowledged\[0\]: unknown key `extra` \(known: crd, version, path, rule, reason\)\n\.op-gen\/crd-diff\.yaml: acknowledged\[0\]: unknown rule `nope` \(one of [a-zA-Z]+(, [a-zA-Z]+)+\)$/,
    );
  });

  it('a version or a path given must match; absent, any matches', () => {
    const finding: Finding = {
      severity: 'breaking',
      rule: 'enum',
      crd: 'a.example.com',
      version: 'v1',
      path: '.spec.a',
      message: 'm',
    };
    const ack = { crd: 'a.example.com', rule: 'enum' as const, reason: 'r', index: 1 };
    assert.equal(matches(ack, finding), true);
    assert.equal(matches({ ...ack, version: 'v1', path: '.spec.a' }, finding), true);
    assert.equal(matches({ ...ack, version: 'v2' }, finding), false);
    assert.equal(matches({ ...ack, path: '.spec.b' }, finding), false);
    assert.equal(matches({ ...ack, rule: 'maximum' }, finding), false);
    assert.equal(matches({ ...ack, crd: 'b.example.com' }, finding), false);
  });
});

describe('crd diff: a keyword holding a value of the wrong shape is reported unhandled', () => {
  const wrong: Readonly<Record<string, unknown>> = {
    'x-kubernetes-int-or-string': 0,
    description: 5,
    title: 5,
    externalDocs: 'x',
    enum: 'x',
    minimum: 'x',
    maximum: 'x',
    minLength: 'x',
    maxLength: 'x',
    minItems: 'x',
    maxItems: 'x',
    minProperties: 'x',
    maxProperties: 'x',
    multipleOf: 'x',
    exclusiveMinimum: 'yes',
    exclusiveMaximum: 'yes',
    uniqueItems: 'yes',
    pattern: 5,
    format: 5,
    nullable: 'yes',
    'x-kubernetes-preserve-unknown-fields': 'yes',
    'x-kubernetes-validations': 'x',
    'x-kubernetes-list-type': 5,
    'x-kubernetes-list-map-keys': 'k',
    'x-kubernetes-map-type': 5,
    'x-kubernetes-embedded-resource': 'yes',
    oneOf: 'x',
    anyOf: 'x',
    allOf: 'x',
    not: [],
  };
  it('not: null is of the wrong shape too', () => {
    assert.ok(
      diffSchemas(S({ type: 'string' }), S({ type: 'string', not: null })).some(
        (c) => c.rule === 'unhandled',
      ),
    );
  });
  for (const [key, value] of Object.entries(wrong)) {
    it(`${key}: ${JSON.stringify(value)}`, () => {
      const base = S({ type: 'string' });
      const changes = diffSchemas(base, S({ ...base, [key]: value }));
      assert.ok(
        changes.some(
          (c) => c.rule === 'unhandled' && c.message === `${key} changed (no rule judges it: check by hand)`,
        ),
        JSON.stringify(changes),
      );
      // the same wrong value on both sides changed nothing
      assert.deepEqual(diffSchemas(S({ ...base, [key]: value }), S({ ...base, [key]: value })), []);
    });
  }
  it('a value of the right shape is judged by its rule, not reported unhandled; example and default take any value', () => {
    const right: Readonly<Record<string, unknown>> = {
      'x-kubernetes-int-or-string': false,
      externalDocs: { url: 'u' },
      exclusiveMinimum: true,
      example: [1],
      default: { a: 1 },
      not: { required: ['a'] },
    };
    for (const [key, value] of Object.entries(right)) {
      const changes = diffSchemas(S({ type: 'string' }), S({ type: 'string', [key]: value }));
      assert.equal(
        changes.some((c) => c.rule === 'unhandled'),
        false,
        `${key}: ${JSON.stringify(changes)}`,
      );
    }
  });
});

describe('crd diff: field names in paths', () => {
  it('writes names of letters, digits, _, $ and - after a dot, any other name quoted', () => {
    const names = ['a', 'A9', '_x', '$ref', 'a-b', 'a_b$', '9a', '-a', 'a.b', 'a b', '', 'é'];
    const o = obj(Object.fromEntries(names.map((n) => [n, S({ type: 'string' })])));
    const changes = diffSchemas(
      S({ type: 'object', properties: { s: o } }),
      S({ type: 'object', properties: { s: obj({}) } }),
    );
    assert.deepEqual(
      changes.map((c) => c.path),
      [
        '.s[""]',
        '.s.$ref',
        '.s["-a"]',
        '.s["9a"]',
        '.s.A9',
        '.s._x',
        '.s.a',
        '.s["a b"]',
        '.s.a-b',
        '.s["a.b"]',
        '.s.a_b$',
        '.s["é"]',
      ],
    );
  });
});

describe('crd diff: edges of the schema rules', () => {
  const brief = (o: Schema, n: Schema): string[] =>
    diffSchemas(o, n).map(
      (c) => `${c.severity} ${c.rule} ${c.path} ${c.message} ${JSON.stringify([c.old, c.new])}`,
    );

  it('a title removed is a change; a bound made exclusive while lowered is lowered', () => {
    assert.deepEqual(brief(S({ type: 'string', title: 'a' }), S({ type: 'string' })), [
      'safe description . title changed ["a",null]',
    ]);
    assert.deepEqual(
      brief(S({ type: 'number', minimum: 2 }), S({ type: 'number', minimum: 1, exclusiveMinimum: true })),
      ['safe minimum . minimum lowered [2,"1 (exclusive)"]'],
    );
    // exclusiveMaximum says nothing about maxLength; an exclusive flag without its bound shows no value
    assert.deepEqual(
      brief(S({ type: 'string', maxLength: 5 }), S({ type: 'string', maxLength: 5, exclusiveMaximum: true })),
      [],
    );
    assert.deepEqual(
      brief(
        S({ type: 'number', exclusiveMinimum: true }),
        S({ type: 'number', minimum: 1, exclusiveMinimum: true }),
      ),
      ['breaking minimum . minimum added [null,"1 (exclusive)"]'],
    );
  });

  it('no type is "unspecified"; enum values removed are listed', () => {
    assert.deepEqual(brief(S({}), S({ type: 'string' })), [
      'breaking type . type changed ["unspecified","string"]',
    ]);
    assert.deepEqual(
      brief(S({ type: 'string', enum: ['x', 'y', 'z'] }), S({ type: 'string', enum: ['x'] })),
      ['breaking enum . enum values removed: "y", "z" [["x","y","z"],["x"]]'],
    );
  });

  it('required names are reported sorted, with or without properties on either side', () => {
    assert.deepEqual(
      brief(
        S({ type: 'object' }),
        S({ type: 'object', required: ['n', 'a'], properties: { a: S({ type: 'string' }) } }),
      ),
      [
        'breaking required .a new required field ["optional","required"]',
        'breaking required .n new required field ["optional","required"]',
      ],
    );
    assert.deepEqual(
      brief(
        S({
          type: 'object',
          required: ['c', 'b'],
          properties: { b: S({ type: 'string' }), c: S({ type: 'string' }) },
        }),
        S({ type: 'object', properties: { b: S({ type: 'string' }), c: S({ type: 'string' }) } }),
      ),
      [
        'safe required .b field no longer required ["required","optional"]',
        'safe required .c field no longer required ["required","optional"]',
      ],
    );
    assert.deepEqual(
      brief(
        S({ type: 'object', required: ['a'], properties: { a: S({ type: 'string' }) } }),
        S({ type: 'object' }),
      ),
      ['breaking existingFieldRemoval .a field removed [null,null]'],
    );
  });

  it('additionalProperties: true → a schema is unhandled, not walked', () => {
    assert.deepEqual(
      brief(
        S({ type: 'object', additionalProperties: true }),
        S({ type: 'object', additionalProperties: S({ type: 'string' }) }),
      ),
      [
        'risky unhandled . additionalProperties changed (no rule judges it: check by hand) [true,{"type":"string"}]',
      ],
    );
  });

  it('list-map keys: none on both sides is no change, keys dropped are', () => {
    const map = (keys?: string[]): Schema =>
      S({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        ...(keys ? { 'x-kubernetes-list-map-keys': keys } : {}),
      });
    assert.deepEqual(brief(map(), map()), []);
    assert.deepEqual(brief(map(['k']), map()), [
      'breaking listMapKeys . list-map keys changed: which items count as the same changes (duplicates refused, merges differ) [["k"],[]]',
    ]);
  });
});

describe('crd diff: edges of the CRD rules', () => {
  const schema = (props: Record<string, Schema> = {}): Schema => obj({ spec: obj(props) });
  const V = (name: string, extra: Record<string, unknown> = {}): CrdDocumentVersion =>
    ({
      name,
      served: true,
      storage: false,
      schema: { openAPIV3Schema: schema() },
      ...extra,
    }) as CrdDocumentVersion;
  const CRD = (
    versions: CrdDocumentVersion[],
    spec: Record<string, unknown> = {},
    rest: Record<string, unknown> = {},
  ): CrdDocument =>
    ({
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'Widget', plural: 'widgets' },
        scope: 'Namespaced',
        versions,
        ...spec,
      },
      ...rest,
    }) as CrdDocument;
  const v1 = (extra: Record<string, unknown> = {}): CrdDocumentVersion =>
    V('v1', { storage: true, ...extra });
  const brief = (o: CrdDocument, n: CrdDocument): string[] =>
    diffCrds([o], [n]).map(
      (f) =>
        `${f.severity} ${f.rule} ${f.version ?? ''} ${f.path ?? ''} ${f.message} ${JSON.stringify([f.old, f.new])}`,
    );

  it('a served version removed (not stored); a status without storedVersions', () => {
    assert.deepEqual(brief(CRD([v1(), V('v2')], {}, { status: {} }), CRD([v1()])), [
      'breaking servedVersionRemoval v2  served version removed (clients using it fail) [null,null]',
    ]);
  });

  it('versions without a schema: on both sides nothing, on the old side only unhandled', () => {
    assert.deepEqual(brief(CRD([v1({ schema: undefined })]), CRD([v1({ schema: undefined })])), []);
    assert.deepEqual(brief(CRD([v1({ schema: undefined })]), CRD([v1()])), [
      'risky unhandled v1 . schema.openAPIV3Schema changed (no rule judges it: check by hand) [null,"present"]',
    ]);
  });

  it('unknown spec keys sorted; short names and selectable fields listed', () => {
    assert.deepEqual(
      brief(CRD([v1()]), CRD([v1()], { zeta: 1, alpha: 2 })).map((x) => x.split(' ').slice(0, 4).join(' ')),
      ['risky unhandled  spec.alpha', 'risky unhandled  spec.zeta'],
    );
    assert.deepEqual(
      brief(
        CRD([v1({ selectableFields: [{ jsonPath: '.a' }, { jsonPath: '.b' }, { jsonPath: '.c' }] })], {
          names: { kind: 'Widget', plural: 'widgets', shortNames: ['a', 'b', 'c'] },
        }),
        CRD([v1({ selectableFields: [{ jsonPath: '.c' }] })], {
          names: { kind: 'Widget', plural: 'widgets', shortNames: ['c'] },
        }),
      ),
      [
        'risky names  spec.names.shortNames shortNames removed: a, b (kubectl commands using them fail) [["a","b","c"],["c"]]',
        'breaking selectableFields v1 selectableFields selectable fields removed: .a, .b (field selectors using them fail) [[".a",".b",".c"],[".c"]]',
      ],
    );
    assert.deepEqual(
      brief(
        CRD([v1({ selectableFields: [{ jsonPath: '.a' }] })], {
          names: { kind: 'Widget', plural: 'widgets', shortNames: ['a'] },
        }),
        CRD([v1({ selectableFields: [{ jsonPath: '.a' }, { jsonPath: '.b' }, { jsonPath: '.c' }] })], {
          names: { kind: 'Widget', plural: 'widgets', shortNames: ['a', 'b', 'c'] },
        }),
      ),
      [
        'safe names  spec.names.shortNames shortNames added: b, c [["a"],["a","b","c"]]',
        'safe selectableFields v1 selectableFields selectable fields added: .b, .c [[".a"],[".a",".b",".c"]]',
      ],
    );
  });

  it('a conversion webhook set or dropped with the strategy None on both sides', () => {
    const hook = { strategy: 'None', webhook: { conversionReviewVersions: ['v1'] } };
    assert.deepEqual(brief(CRD([v1()]), CRD([v1()], { conversion: hook })), [
      'risky conversion  spec.conversion.webhook conversion webhook configuration changed [null,{"conversionReviewVersions":["v1"]}]',
    ]);
    assert.deepEqual(brief(CRD([v1()], { conversion: hook }), CRD([v1()])), [
      'risky conversion  spec.conversion.webhook conversion webhook configuration changed [{"conversionReviewVersions":["v1"]},null]',
    ]);
  });

  it('served versions: a difference whose newer value changed is new; short names that are not strings are not compared', () => {
    const pair = (a: Schema, b: Schema): CrdDocument =>
      CRD([
        v1({ schema: { openAPIV3Schema: schema({ f: a }) } }),
        V('v1beta1', { schema: { openAPIV3Schema: schema({ f: b }) } }),
      ]);
    assert.deepEqual(
      brief(
        pair(S({ type: 'string' }), S({ type: 'integer' })),
        pair(S({ type: 'boolean' }), S({ type: 'integer' })),
      ).map((x) => x.split(' ').slice(0, 3).join(' ')),
      ['breaking type v1', 'risky servedVersionDifference v1beta1'],
    );
    const names = (shortNames: unknown[]): Record<string, unknown> => ({
      names: { kind: 'Widget', plural: 'widgets', shortNames },
    });
    assert.deepEqual(brief(CRD([v1()], names(['w', 5])), CRD([v1()], names(['w']))), []);
  });

  it('an unknown subresource changed shows both values', () => {
    assert.deepEqual(
      brief(CRD([v1({ subresources: { other: 1 } })]), CRD([v1({ subresources: { other: 2 } })])),
      [
        'risky unhandled v1 subresources.other subresources.other changed (no rule judges it: check by hand) [1,2]',
      ],
    );
  });

  it('served versions: descriptions never differ, a difference with other values is new', () => {
    const pair = (a: Schema, b: Schema): CrdDocument =>
      CRD([
        v1({ schema: { openAPIV3Schema: schema({ f: a }) } }),
        V('v1beta1', { schema: { openAPIV3Schema: schema({ f: b }) } }),
      ]);
    assert.deepEqual(
      brief(
        pair(S({ type: 'string' }), S({ type: 'string' })),
        pair(S({ type: 'string', description: 'x' }), S({ type: 'string' })),
      ),
      ['safe description v1 .spec.f description changed [null,"x"]'],
    );
    assert.deepEqual(
      brief(
        pair(S({ type: 'string' }), S({ type: 'integer' })),
        pair(S({ type: 'string' }), S({ type: 'boolean' })),
      ).map((x) => x.split(' ').slice(0, 4).join(' ')),
      ['breaking type v1beta1 .spec.f', 'risky servedVersionDifference v1beta1 ->'],
    );
  });
});
