/**
 * The only "lib" the API program sees (`noLib: true`): just what API sources use. Loading the real
 * lib.es*.d.ts files would cost more than the whole API walk.
 */
export const LIB_STUB_PATH = '/__op-gen__/lib.d.ts';

export const LIB_STUB = `
interface Array<T> { length: number; [n: number]: T; }
interface ReadonlyArray<T> { readonly length: number; readonly [n: number]: T; }
interface Boolean {}
interface Number {}
interface String {}
interface Object {}
interface Function {}
interface CallableFunction extends Function {}
interface NewableFunction extends Function {}
interface IArguments {}
interface RegExp {}
interface Symbol {}
interface BigInt {}
interface Date { getTime(): number; }
interface Promise<T> { then<R>(f: (value: T) => R): Promise<R>; }
interface Map<K, V> { get(key: K): V | undefined; }
interface Set<T> { has(value: T): boolean; }
interface TemplateStringsArray extends ReadonlyArray<string> { readonly raw: readonly string[]; }
type PropertyKey = string | number | symbol;
type Partial<T> = { [P in keyof T]?: T[P] };
type Required<T> = { [P in keyof T]-?: T[P] };
type Readonly<T> = { readonly [P in keyof T]: T[P] };
type Pick<T, K extends keyof T> = { [P in K]: T[P] };
type Record<K extends keyof any, T> = { [P in K]: T };
type Exclude<T, U> = T extends U ? never : T;
type Extract<T, U> = T extends U ? T : never;
type Omit<T, K extends keyof any> = Pick<T, Exclude<keyof T, K>>;
type NonNullable<T> = T & {};
`;
