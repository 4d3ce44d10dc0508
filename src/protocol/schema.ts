// A small runtime schema language for validating messages at the boundary. Types are inferred
// from the schemas, so the TypeScript view and the runtime check cannot drift apart.

export interface Schema<T> {
  readonly optional: boolean;
  /** Returns a description of the first problem found, or undefined when the value fits. */
  check(value: unknown, path: string): string | undefined;
  /** Phantom field carrying the inferred type. */
  readonly __type?: T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

interface OptionalSchema<T> extends Schema<T | undefined> {
  readonly optional: true;
}

type Shape = Record<string, Schema<unknown>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends OptionalSchema<unknown> ? K : never }[keyof S];
type RequiredKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
export type InferShape<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Exclude<Infer<S[K]>, undefined> };

const make = <T>(check: (value: unknown, path: string) => string | undefined): Schema<T> => ({ optional: false, check });

export const MAX_STRING = 1 << 20;

export const s = {
  string(opts: { max?: number; min?: number; pattern?: RegExp } = {}): Schema<string> {
    const max = opts.max ?? MAX_STRING;
    return make((v, p) => {
      if (typeof v !== 'string') return `${p} must be a string`;
      if (v.length > max) return `${p} is longer than ${max} characters`;
      if (opts.min !== undefined && v.length < opts.min) return `${p} is shorter than ${opts.min} characters`;
      if (opts.pattern && !opts.pattern.test(v)) return `${p} has an invalid format`;
      return undefined;
    });
  },
  literal<L extends string>(lit: L): Schema<L> {
    return make((v, p) => (v === lit ? undefined : `${p} must be "${lit}"`));
  },
  oneOf<L extends string>(values: readonly L[]): Schema<L> {
    return make((v, p) => (typeof v === 'string' && (values as readonly string[]).includes(v) ? undefined : `${p} must be one of ${values.join(', ')}`));
  },
  int(opts: { min?: number; max?: number } = {}): Schema<number> {
    return make((v, p) => {
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) return `${p} must be an integer`;
      if (opts.min !== undefined && v < opts.min) return `${p} must be >= ${opts.min}`;
      if (opts.max !== undefined && v > opts.max) return `${p} must be <= ${opts.max}`;
      return undefined;
    });
  },
  number(opts: { min?: number } = {}): Schema<number> {
    return make((v, p) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) return `${p} must be a finite number`;
      if (opts.min !== undefined && v < opts.min) return `${p} must be >= ${opts.min}`;
      return undefined;
    });
  },
  bool(): Schema<boolean> {
    return make((v, p) => (typeof v === 'boolean' ? undefined : `${p} must be a boolean`));
  },
  /** Any JSON value (already bounded by the frame size and the decoder's depth limit). */
  json(): Schema<unknown> {
    return make(() => undefined);
  },
  array<T>(item: Schema<T>, opts: { max?: number } = {}): Schema<T[]> {
    const max = opts.max ?? 100_000;
    return make((v, p) => {
      if (!Array.isArray(v)) return `${p} must be an array`;
      if (v.length > max) return `${p} has more than ${max} items`;
      for (let i = 0; i < v.length; i++) {
        const err = item.check(v[i], `${p}[${i}]`);
        if (err) return err;
      }
      return undefined;
    });
  },
  /** A plain object used as a string-keyed map. */
  record<T>(value: Schema<T>): Schema<Record<string, T>> {
    return make((v, p) => {
      if (!isPlainObject(v)) return `${p} must be an object`;
      for (const [k, item] of Object.entries(v)) {
        const err = value.check(item, `${p}.${k}`);
        if (err) return err;
      }
      return undefined;
    });
  },
  object<S extends Shape>(shape: S): Schema<InferShape<S>> {
    const entries = Object.entries(shape);
    return make((v, p) => {
      if (!isPlainObject(v)) return `${p} must be an object`;
      for (const [k, sub] of entries) {
        const has = Object.hasOwn(v, k);
        const item = has ? (v as Record<string, unknown>)[k] : undefined;
        if (item === undefined) {
          if (sub.optional) continue;
          return `${p}.${k} is required`;
        }
        const err = sub.check(item, `${p}.${k}`);
        if (err) return err;
      }
      return undefined;
    });
  },
  optional<T>(inner: Schema<T>): OptionalSchema<T> {
    return { optional: true, check: (v, p) => (v === undefined ? undefined : inner.check(v, p)) };
  },
  union<T>(...options: Schema<T>[]): Schema<T> {
    return make((v, p) => {
      let first: string | undefined;
      for (const o of options) {
        const err = o.check(v, p);
        if (!err) return undefined;
        first ??= err;
      }
      return first;
    });
  },
};

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}
