// Brine's error codes as HTTP statuses (salt-api's: 401 without or with a bad token, 403 outside
// the ACL, 400 for a malformed lowstate), and the body every error gets: salt-api's `status` and
// `return` plus brine's coded error.

import { BrineError, ERRORS, type ErrorCode, isBrineError } from '../util/errors.js';

const STATUS = new Map<ErrorCode, number>([
  ['TOKEN_MISSING', 401],
  ['TOKEN_INVALID', 401],
  ['TOKEN_EXPIRED', 401],
  ['TOKEN_KEY_CHANGED', 401],
  ['TOKEN_USER_REMOVED', 401],
  ['LOGIN_FAILED', 401],
  ['EAUTH_UNAVAILABLE', 401],
  ['HTPASSWD_HASH_UNSUPPORTED', 401],
  ['EAUTH_CONFIG', 401],
  ['ACL_DENIED', 403],
  ['PILLAR_OVERRIDE_DENIED', 403],
  ['CSRF_REFUSED', 403],
  ['API_BAD_REQUEST', 400],
  ['TARGET_INVALID', 400],
  ['UNKNOWN_FUNCTION', 400],
  ['BAD_ARGUMENTS', 400],
  ['INVALID_JID', 400],
  ['INVALID_ID', 400],
  ['API_STATIC_REFUSED', 400],
  ['INVALID_BATCH', 400],
  ['USAGE', 400],
  ['API_NOT_FOUND', 404],
  ['KEY_NOT_FOUND', 404],
  ['KEY_AMBIGUOUS', 409],
  ['API_TIMEOUT', 408],
  ['API_BODY_TOO_LARGE', 413],
  ['LOGIN_THROTTLED', 429],
  ['API_STREAMS_LIMIT', 429],
  // `brine api` (its own process) while the master is down
  ['MASTER_UNREACHABLE', 503],
]);

/** salt-api's `return` text for its statuses. */
const SALT_TEXT = new Map<number, string>([
  [400, 'Bad Request'],
  [401, 'Please log in'],
  [403, 'Forbidden'],
  [404, 'Not Found'],
  [408, 'Request Timeout'],
  [409, 'Conflict'],
  [413, 'Request Entity Too Large'],
  [429, 'Too Many Requests'],
  [500, 'An unexpected error occurred'],
  [503, 'Service Unavailable'],
]);

export function statusOf(err: BrineError): number {
  return STATUS.get(err.code) ?? 500;
}

export interface ErrorBody {
  status: number;
  return: string;
  error: { code: string; message: string; fix: string };
}

export function errorBody(err: BrineError): ErrorBody {
  const status = statusOf(err);
  return { status, return: SALT_TEXT.get(status) ?? 'Error', error: { code: err.code, message: err.message, fix: ERRORS[err.code].fix } };
}

/** Fastify's own errors (body parser, size limit, unknown content type) as brine's. */
export function fromFrameworkError(err: unknown): BrineError {
  if (isBrineError(err)) return err;
  const e = err as { code?: string; statusCode?: number; message?: string };
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || e.statusCode === 413) return new BrineError('API_BODY_TOO_LARGE', 'the request body is larger than the api max_body limit; it was not read');
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || e.statusCode === 415) {
    return new BrineError('API_BAD_REQUEST', 'unsupported Content-Type: send application/json, application/x-www-form-urlencoded or application/x-yaml');
  }
  if (e.statusCode === 408) return new BrineError('API_TIMEOUT', 'the request was not received in time');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new BrineError('API_BAD_REQUEST', `the request cannot be parsed: ${String(e.message).slice(0, 200)}`);
  return new BrineError('INTERNAL', 'the API request failed; see the master log', { cause: err });
}
