// The codec: messages <-> frame payloads. JSON was measured as fast as msgpack on V8 (design.md),
// so the payload is UTF-8 JSON; everything about the encoding stays behind these two functions.

import { BrineError, errorMessage } from '../util/errors.js';
import { encodeFrame } from './frame-decoder.js';
import { isPlainObject, type Schema } from './schema.js';

/** Nesting deeper than this is refused (threats.md case 23). */
export const MAX_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Frames of prepared messages, by message object. */
const preparedFrames = new WeakMap<object, Buffer>();

export function encodeMessage(message: object): Buffer {
  return preparedFrames.get(message) ?? encodeFrame(Buffer.from(JSON.stringify(message), 'utf8'));
}

/**
 * Encodes a message once for many recipients (a job sent to every matched session): it is
 * frozen, and encodeMessage returns the same frame for it each time.
 */
export function prepareMessage<M extends object>(message: M): Readonly<M> {
  preparedFrames.set(message, encodeMessage(message));
  return Object.freeze(message);
}

/**
 * A stand-in for `message` whose frame is `before`'s frame followed by message's own, so a channel
 * that writes each message's frame with one write sends both in that write (one TLS record): the
 * master's carried acks ride on its next frame to a minion this way (issue 27). The stand-in has
 * message's fields, and the receiver decodes two ordinary frames, `before` first.
 */
export function prepareCarried<M extends object>(before: object, message: M): Readonly<M> {
  const standIn = { ...message };
  preparedFrames.set(standIn, Buffer.concat([encodeMessage(before), encodeMessage(message)]));
  return Object.freeze(standIn);
}

/** Parses a payload into a plain JSON value, refusing invalid UTF-8, bad JSON and deep nesting. */
export function parsePayload(payload: Uint8Array): unknown {
  let text: string;
  try {
    text = utf8.decode(payload);
  } catch (err) {
    throw new BrineError('FRAME_MALFORMED', 'frame payload is not valid UTF-8', { cause: err });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new BrineError('FRAME_MALFORMED', `frame payload is not valid JSON: ${errorMessage(err)}`, { cause: err });
  }
  // each level of nesting takes two bytes ({} or []), so a short payload cannot be too deep;
  // heartbeats and small returns skip the walk
  if (payload.length > 2 * MAX_DEPTH) checkDepth(value);
  return value;
}

/**
 * Decodes and validates one message against the allow-list for this direction. Unknown types
 * and invalid fields become MESSAGE_INVALID; nothing is dispatched by a name from the wire
 * except through the Map.
 */
export function decodeMessage<M>(payload: Uint8Array, schemas: ReadonlyMap<string, Schema<unknown>>): M {
  const value = parsePayload(payload);
  if (!isPlainObject(value)) throw new BrineError('MESSAGE_INVALID', 'message is not a JSON object');
  const type = value.t;
  if (typeof type !== 'string') {
    // name only the kind: the value itself may be huge, and this message goes back to the peer
    const kind = type === undefined ? 'missing' : type === null ? 'null' : Array.isArray(type) ? 'an array' : `a ${typeof type}`;
    throw new BrineError('MESSAGE_INVALID', `message type "t" must be a string (it is ${kind})`, { details: { type: null } });
  }
  const schema = schemas.get(type);
  if (!schema) {
    throw new BrineError('MESSAGE_INVALID', `unknown message type ${JSON.stringify(type.slice(0, 40))}`, { details: { type: type.slice(0, 40) } });
  }
  const problem = schema.check(value, 'message');
  if (problem) throw new BrineError('MESSAGE_INVALID', `invalid "${type}" message: ${problem}`, { details: { type } });
  return value as M;
}

function checkDepth(root: unknown): void {
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_DEPTH) throw new BrineError('FRAME_MALFORMED', `message nests deeper than ${MAX_DEPTH} levels`);
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push([c, depth + 1]);
  }
}
