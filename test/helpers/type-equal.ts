// Compile-time assertions for tests of inferred types: `expectType<Equal<A, B>>()` does not
// compile unless A and B are the same type, so the build itself is the failing test.

/** true when A and B are identical types (not merely assignable either way). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when its type argument is `true`; does nothing at run time. */
export function expectType<T extends true>(): T | undefined {
  return undefined;
}
