// Remote files (http:// and https:// URLs) as Salt's file client caches them (cp.cache_file,
// file.managed and archive.extracted sources, source_hash files, pkgrepo key_url): downloaded to
// <cachedir>/extrn_files/<saltenv>/<host[:port]>/<path> through a .part file, and not downloaded
// again when a hash the caller expects already matches the cached copy. Certificates are always
// verified, against the system's store or the minion's ca_bundle (Salt's option name).

import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { BrineError } from '../util/errors.js';

/** Salt's salt.utils.files.REMOTE_PROTOS. */
const REMOTE_PROTOS = new Set(['http', 'https', 'ftp', 'swift', 's3']);
const MAX_REDIRECTS = 10;
// Salt's MAX_FILENAME_LENGTH: a longer cache name is replaced by its sha256
const MAX_FILENAME_LENGTH = 255;

export interface UrlCacheOptions {
  cachedir: string;
  saltenv: string;
  /** Ends the download (the job's signal). */
  signal?: AbortSignal;
  /** PEM file of the CAs to trust instead of the system's (the minion's ca_bundle option). */
  caBundle?: string;
  /** false: do not verify an https server's certificate (Salt's verify_ssl: False); verified by default. */
  verifySsl?: boolean;
}

/** The scheme of a URL in lower case ('' for a plain path). */
export function urlScheme(url: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  return m ? m[1]!.toLowerCase() : '';
}

/** Whether Salt treats the URL as a remote source (http, https, ftp, swift, s3). */
export function isRemoteUrl(url: string): boolean {
  return REMOTE_PROTOS.has(urlScheme(url));
}

/** The path part of a URL, for Salt's "reading <path>" wording. */
const urlPath = (url: URL): string => url.pathname || '/';

/** Salt's fileclient._extrn_path: where a remote file is cached; credentials in the URL are left out. */
export function extrnPath(cachedir: string, saltenv: string, url: string): string {
  const u = new URL(url);
  const netloc = u.port ? `${u.hostname}:${u.port}` : u.hostname;
  const query = u.search.replace(/^\?/, '');
  let fileName = query ? `${u.pathname}-${query}` : u.pathname;
  // a host of dots ('..' is a valid URL host) would name a directory outside the saltenv's
  if (/^\.+$/.test(u.hostname) || saltenv.includes('/') || saltenv.startsWith('.')) {
    throw new BrineError('PATH_REFUSED', `The URL ${redact(url)} (saltenv '${saltenv}') names no place inside the cache; give a real host name`);
  }
  const root = path.join(cachedir, 'extrn_files', saltenv, netloc);
  // new URL() has already resolved dot segments; a name still leaving the root is refused
  if (!path.resolve(root, `.${fileName}`).startsWith(`${root}${path.sep}`)) {
    throw new BrineError('PATH_REFUSED', `The URL ${redact(url)} names no file inside the cache; give the URL of a file`);
  }
  if (fileName.length > MAX_FILENAME_LENGTH) fileName = createHash('sha256').update(fileName).digest('hex');
  return path.join(root, fileName);
}

/** The URL without user:password, for messages (Salt's redact_http_basic_auth). */
export function redact(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}

function checkScheme(url: string): URL {
  const scheme = urlScheme(url);
  if (scheme !== 'http' && scheme !== 'https') {
    throw new BrineError('BAD_ARGUMENTS', `${scheme}:// sources are not supported by brine (only http:// and https://); serve ${redact(url)} over https or from salt://`);
  }
  try {
    return new URL(url);
  } catch {
    throw new BrineError('BAD_ARGUMENTS', `'${redact(url)}' is not a valid URL`);
  }
}

interface Answer {
  status: number;
  reason: string;
  body: http.IncomingMessage;
}

async function request(method: 'GET' | 'HEAD', start: URL, o: UrlCacheOptions): Promise<Answer> {
  const ca = o.caBundle ? await readFile(o.caBundle) : undefined;
  let url = start;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const auth = url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined;
      const opts = { method, auth, signal: o.signal, headers: { 'User-Agent': 'Salt/brine' } };
      const req =
        url.protocol === 'https:' ? https.request(url, { ...opts, ...(ca ? { ca } : {}), ...(o.verifySsl === false ? { rejectUnauthorized: false } : {}) }, resolve) : http.request(url, opts, resolve);
      req.on('error', reject);
      req.end();
    });
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if ([301, 302, 303, 307, 308].includes(status) && location) {
      res.resume();
      url = new URL(location, url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BrineError('URL_FETCH_FAILED', `Error: redirected to ${url.protocol} reading ${urlPath(start)}`);
      continue;
    }
    return { status, reason: res.statusMessage ?? http.STATUS_CODES[status] ?? 'Unknown', body: res };
  }
  throw new BrineError('URL_FETCH_FAILED', `Error: more than ${MAX_REDIRECTS} redirects reading ${urlPath(start)}`);
}

function failed(url: URL, err: unknown): BrineError {
  if (err instanceof BrineError) return err;
  const e = err as NodeJS.ErrnoException;
  return new BrineError('URL_FETCH_FAILED', `Error: ${e.code ? `${e.code} ${e.message}` : e.message} reading ${urlPath(url)}`, { cause: err });
}

/** The hex digest of a file. */
export async function fileDigest(file: string, type: string): Promise<string> {
  const h = createHash(type);
  await pipeline(createReadStream(file), h);
  return h.digest('hex');
}

/**
 * Downloads the URL into the cache and returns the cached file. With `expected`, a cached copy
 * whose digest already matches is returned without a download (Salt's get_url).
 */
export async function cacheUrl(url: string, o: UrlCacheOptions, expected?: { type: string; hex: string }): Promise<string> {
  const u = checkScheme(url);
  const dest = extrnPath(o.cachedir, o.saltenv, url);
  if (expected) {
    const have = await fileDigest(dest, expected.type).catch(() => undefined);
    if (have === expected.hex) return dest;
  }
  await mkdir(path.dirname(dest), { recursive: true });
  const part = `${dest}.part`;
  try {
    const res = await request('GET', u, o);
    if (res.status >= 400) {
      res.body.resume();
      throw new BrineError('URL_FETCH_FAILED', `Error: HTTP ${res.status}: ${res.reason} reading ${urlPath(u)}`);
    }
    await pipeline(res.body, createWriteStream(part, { mode: 0o600 }));
    await rename(part, dest);
  } catch (err) {
    await rm(part, { force: true });
    throw failed(u, err);
  }
  return dest;
}

/** Whether a HEAD request for the URL succeeds (Salt's source_list test of a remote candidate). */
export async function urlAnswers(url: string, o: UrlCacheOptions): Promise<boolean> {
  const u = checkScheme(url);
  try {
    const res = await request('HEAD', u, o);
    res.body.resume();
    return res.status < 400;
  } catch {
    return false;
  }
}
