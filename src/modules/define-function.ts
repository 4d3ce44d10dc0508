// Declares an execution function so that its `run` sees each argument with the type its
// parameter declares (as src/protocol/schema.ts infers messages): bindArguments has already
// checked and converted every value, so module code needs no casts on `args.named`.

import type { ExecContext, ModuleFunction, ParamSpec, ParamType } from './types.js';

/** The value a parameter of this type holds after binding (bind-args.ts `coerce` is the run-time side). */
export type ParamValue<T extends ParamType> = {
  string: string;
  number: number;
  int: number;
  bool: boolean;
  any: unknown;
  list: unknown[];
  map: Record<string, unknown>;
}[T];

/** Parameters always present after binding: required ones, and optional ones with a default. */
// biome-ignore lint/complexity/noBannedTypes: `{}` here means "has a default of any value"
type Present<P extends ParamSpec> = P extends { readonly required: true } | { readonly default: {} } ? P : never;

/** `args.named` for a parameter list: a parameter the caller may leave out is optional. */
export type NamedArgs<Ps extends readonly ParamSpec[]> = {
  [P in Present<Ps[number]> as P['name']]: ParamValue<P['type']>;
} & {
  [P in Exclude<Ps[number], Present<Ps[number]>> as P['name']]?: ParamValue<P['type']>;
};

/** BoundArgs with `named` typed from the declared parameters. */
export interface TypedArgs<Ps extends readonly ParamSpec[]> {
  named: NamedArgs<Ps>;
  rest: unknown[];
  extra: Record<string, unknown>;
}

export interface TypedModuleFunction<Ps extends readonly ParamSpec[]> extends Omit<ModuleFunction, 'params' | 'run'> {
  params: Ps;
  run(ctx: ExecContext, args: TypedArgs<Ps>): Promise<unknown> | unknown;
}

/** A module function whose `run` arguments are inferred from its `params`. */
export function defineFunction<const Ps extends readonly ParamSpec[]>(fn: TypedModuleFunction<Ps>): ModuleFunction {
  return fn;
}

/** A parameter list shared by several functions, its names and types kept for defineFunction. */
export function defineParams<const Ps extends readonly ParamSpec[]>(params: Ps): Ps {
  return params;
}

/** One parameter shared by several functions, its name and type kept for defineFunction. */
export function defineParam<const P extends ParamSpec>(param: P): P {
  return param;
}
