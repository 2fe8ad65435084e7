export type {
  int32,
  int64,
  float64,
  Quantity,
  IntOrString,
  Time,
  Duration,
  SchemaFormatTag,
} from './scalars.ts';
export type {
  ObjectMeta,
  OwnerReference,
  ManagedFieldsEntry,
  Condition,
  KubernetesObject,
  PreserveUnknownFields,
} from './meta.ts';
