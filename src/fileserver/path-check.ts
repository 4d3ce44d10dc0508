// The file server's path grammar, checked before any filesystem access: a salt:// URL or a
// relative path must name something inside an environment's root, and an environment name must
// be a plain word. Everything here is pure string work (threats.md #8 and #10).

import { BrineError } from '../util/errors.js';

/** Environment names: letters, digits, `_`, `-` and `.` (not first), as Salt's saltenvs are used. */
const SALTENV = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;
const MAX_PATH = 4096;

function refuse(what: string, why: string): BrineError {
  return new BrineError('PATH_REFUSED', `${what} is refused: ${why}; use a relative salt:// path inside file_roots (nothing was read)`);
}

/** Shows a refused value safely in a message (no control characters reach a log or terminal). */
function shown(value: string): string {
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}...` : value);
}

/** Throws PATH_REFUSED unless `saltenv` is a plain environment name. */
export function checkSaltenv(saltenv: string): string {
  if (typeof saltenv !== 'string' || !SALTENV.test(saltenv) || saltenv.includes('..')) {
    throw refuse(`saltenv ${shown(String(saltenv))}`, 'an environment name is letters, digits, _, - and . (not first, no ..)');
  }
  return saltenv;
}

/**
 * Checks a path relative to an environment's root and returns it normalised (no empty or `.`
 * segments, no trailing slash). `allowEmpty` admits the root itself (a listing prefix).
 */
export function checkRelativePath(p: string, allowEmpty = false): string {
  const what = `path ${shown(p)}`;
  if (typeof p !== 'string') throw refuse('path', 'it is not a string');
  if (p.length > MAX_PATH) throw refuse(what, `it is longer than ${MAX_PATH} characters`);
  // control characters include NUL; they have no place in a file name we serve
  if (/[\u0000-\u001f\u007f]/.test(p)) throw refuse(what, 'it contains a NUL or control character');
  if (p.includes('\\')) throw refuse(what, 'it contains a backslash');
  // any percent-encoding: salt:// paths are not URL-decoded, so %2e%2e%2f is either an attack
  // or a name nobody has; %25 (a doubly encoded one) likewise
  if (/%[0-9a-fA-F]{2}/.test(p)) throw refuse(what, 'it contains a percent-encoded character (%2e, %2f, %25 ...)');
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(p)) throw refuse(what, 'it has a URL scheme (only salt:// is served)');
  if (p.startsWith('/')) throw refuse(what, 'it is absolute');
  const segments = p.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw refuse(what, 'it has a .. segment');
  if (segments.length === 0 && !allowEmpty) throw refuse(what, 'it names no file');
  return segments.join('/');
}

/**
 * A listing prefix: checked like a path, normalised, and a trailing `/` kept, so `web/` means
 * the directory's contents while `web` also matches `webapp.conf` (Salt's string prefix).
 */
export function checkPrefix(prefix: string): string {
  const p = checkRelativePath(prefix, true);
  return p !== '' && prefix.endsWith('/') ? `${p}/` : p;
}

export interface SaltPath {
  /** Normalised relative path inside the environment. */
  path: string;
  saltenv: string;
}

/**
 * Splits `salt://path?saltenv=env` (or a bare relative path) into a checked path and
 * environment; `?saltenv=` wins over the given saltenv, as in Salt.
 */
export function parseSaltUrl(url: string, saltenv: string): SaltPath {
  if (typeof url !== 'string') throw refuse('path', 'it is not a string');
  let rest = url;
  if (rest.startsWith('salt://')) rest = rest.slice('salt://'.length);
  let env = saltenv;
  const q = rest.indexOf('?');
  if (q >= 0) {
    const query = rest.slice(q + 1);
    rest = rest.slice(0, q);
    for (const part of query.split('&')) {
      const eq = part.indexOf('=');
      const key = eq >= 0 ? part.slice(0, eq) : part;
      if (key === 'saltenv' || key === 'env') env = eq >= 0 ? part.slice(eq + 1) : '';
      else if (key !== '') throw refuse(`URL ${shown(url)}`, `unknown query parameter ${shown(key)} (only saltenv=)`);
    }
  }
  return { path: checkRelativePath(rest), saltenv: checkSaltenv(env) };
}

/** `a/b.sls` -> `a.b`, `a/init.sls` -> `a`; undefined for a file that is not an SLS. */
export function slsNameOf(file: string): string | undefined {
  if (!file.endsWith('.sls')) return undefined;
  const parts = file.slice(0, -4).split('/');
  if (parts.length > 1 && parts[parts.length - 1] === 'init') parts.pop();
  return parts.join('.');
}
