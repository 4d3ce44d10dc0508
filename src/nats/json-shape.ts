// Values brine stores or passes between its own processes over NATS (job records in the stream,
// key-state and minion-data entries in KV buckets, sign-in answers) are read through a declared
// shape: the protocol's schema language checks the value and gives its type, so nothing is cast
// at the point of use and a value of another shape is a coded MESSAGE_INVALID.

import { BrineError, toBrineError } from '../util/errors.js';
import type { Schema } from '../protocol/index.js';

/** True when `value` fits `schema`; narrows it to the schema's type. */
export function fits<T>(schema: Schema<T>, value: unknown): value is T {
  return schema.check(value, '') === undefined;
}

/** `value` as the schema's type, or MESSAGE_INVALID naming `what` and the first problem. */
export function asShape<T>(schema: Schema<T>, value: unknown, what: string): T {
  if (fits(schema, value)) return value;
  throw new BrineError('MESSAGE_INVALID', `invalid ${what}: ${schema.check(value, what) ?? 'it does not fit its shape'}`);
}

/** JSON text (or UTF-8 bytes) read as the schema's type; MESSAGE_INVALID for bad JSON or a bad shape. */
export function readShape<T>(schema: Schema<T>, data: string | Uint8Array, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(typeof data === 'string' ? data : Buffer.from(data).toString('utf8'));
  } catch (err) {
    throw new BrineError('MESSAGE_INVALID', `${what} is not valid JSON: ${toBrineError(err).message}`, { cause: err });
  }
  return asShape(schema, value, what);
}
