// Where file.managed, file.recurse and archive.extracted get their bytes: a salt:// URL through
// the file client (cached on the minion), a local path (or file:// URL), an http(s):// URL
// downloaded into <cachedir>/extrn_files (Salt's file client; it needs source_hash or
// skip_verify), or the first of a list that exists; and the source_hash check that must pass
// before anything is written.

import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { cacheUrl, isRemoteUrl, redact, urlAnswers, type UrlCacheOptions } from '../../modules/index.js';
import { BrineError } from '../../util/errors.js';
import type { StateContext } from '../types.js';
import { errorText } from './file-result.js';

export interface ResolvedSource {
  /** The source as the SLS named it (for comments). */
  url: string;
  /** A local file holding the bytes (the minion's cache for salt://). */
  localPath: string;
  /** A hash given next to the source in a list (`- salt://a: sha256=...`). */
  hash?: string;
  /** Downloaded from an http(s):// URL (a hash mismatch is then worded as Salt words it for web sources). */
  remote?: boolean;
}

/** What resolving a remote source needs: its hash (Salt refuses to download one unverified) or skip_verify. */
export interface RemoteCheck {
  sourceHash?: string;
  sourceHashName?: string;
  skipVerify?: boolean;
  /** false: an https source's (or hash file's) certificate is not verified (Salt's verify_ssl). */
  verifySsl?: boolean;
}

/** The download options of this minion: its cachedir, the job's signal, its ca_bundle. */
export function urlOptions(ctx: StateContext, verifySsl = true): UrlCacheOptions {
  const cachedir = ctx.exec.config.cachedir;
  if (typeof cachedir !== 'string' || cachedir === '') throw new BrineError('EXEC_FAILED', 'this minion has no cachedir to download remote files into; set cachedir');
  const ca = ctx.exec.config.ca_bundle;
  return { cachedir, saltenv: ctx.saltenv, signal: ctx.exec.signal, ...(typeof ca === 'string' && ca !== '' ? { caBundle: ca } : {}), ...(verifySsl ? {} : { verifySsl: false }) };
}

type Outcome<T> = { ok: T } | { error: string };

const HASH_LENGTHS: Record<number, string> = { 32: 'md5', 40: 'sha1', 56: 'sha224', 64: 'sha256', 96: 'sha384', 128: 'sha512' };
const HASH_TYPES = new Set(Object.values(HASH_LENGTHS));

function isSalt(url: string): boolean {
  return url.startsWith('salt://');
}

function localOf(url: string): string | undefined {
  if (url.startsWith('file://')) return url.slice('file://'.length);
  return path.isAbsolute(url) ? url : undefined;
}

/** The source list as Salt takes it: one string, or a list of strings or one-key maps {url: hash}. */
export function sourceCandidates(raw: unknown): Outcome<{ url: string; hash?: string }[]> {
  const items = Array.isArray(raw) ? raw : [raw];
  const out: { url: string; hash?: string }[] = [];
  for (const item of items) {
    if (typeof item === 'string' && item !== '') out.push({ url: item });
    else if (item && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length === 1) {
      const [url, hash] = Object.entries(item)[0]!;
      out.push({ url, hash: hash === null || hash === undefined ? undefined : String(hash) });
    } else return { error: `Invalid source ${JSON.stringify(item)}; give a salt:// URL, an absolute path, or a list of them` };
  }
  if (out.length === 0) return { error: 'No source given; give a salt:// URL or an absolute path' };
  for (const c of out) {
    if (!isSalt(c.url) && !isRemoteUrl(c.url) && localOf(c.url) === undefined) {
      return { error: `Unsupported source ${redact(c.url)}: give a salt:// URL, an http(s):// URL or an absolute local path` };
    }
  }
  return { ok: out };
}

/** The first candidate that exists, made local (salt:// files fetched into the minion's cache). */
export async function resolveSource(ctx: StateContext, raw: unknown, check: RemoteCheck = {}): Promise<Outcome<ResolvedSource>> {
  const cands = sourceCandidates(raw);
  if ('error' in cands) return cands;
  for (const c of cands.ok) {
    if (isRemoteUrl(c.url)) {
      // Salt's source_list tries a remote candidate of a list with a HEAD request
      if (cands.ok.length > 1 && !(await urlAnswers(c.url, urlOptions(ctx, check.verifySsl !== false)))) continue;
      return fetchRemote(ctx, c, check);
    }
    if (isSalt(c.url)) {
      const files = ctx.exec.files;
      if (!files)
        return { error: `Cannot fetch ${c.url}: no file server is reachable from this minion (FILESERVER_UNAVAILABLE); check the master connection or set file_client: local with file_roots` };
      try {
        // one request, not stat then cacheFile: a file in no root is FILE_NOT_FOUND from
        // cacheFile (the FileClient contract), and each request is a trip to the host thread
        const cached = await files.cacheFile(c.url, ctx.saltenv);
        return { ok: { url: c.url, localPath: cached.localPath, hash: c.hash } };
      } catch (err) {
        if (err instanceof BrineError && err.code === 'FILE_NOT_FOUND') continue;
        return { error: `Unable to fetch ${c.url}: ${errorText(err)}` };
      }
    }
    const local = localOf(c.url)!;
    const st = await stat(local).catch(() => undefined);
    if (st?.isFile()) return { ok: { url: c.url, localPath: local, hash: c.hash } };
  }
  const names = cands.ok.map((c) => c.url).join(', ');
  return { error: `Source file ${names} not found in saltenv '${ctx.saltenv}'; check the path under file_roots (or the local path)` };
}

/** Salt's get_managed for a remote source: the hash first (a cached copy that matches is not downloaded again). */
async function fetchRemote(ctx: StateContext, c: { url: string; hash?: string }, check: RemoteCheck): Promise<Outcome<ResolvedSource>> {
  const hash = c.hash ?? check.sourceHash;
  let expected: ExpectedHash | undefined;
  if (!check.skipVerify) {
    if (hash === undefined || hash === '') return { error: `Unable to verify upstream hash of source file ${redact(c.url)}, please set source_hash or set skip_verify to True` };
    const exp = await expectedHash(ctx, hash, c.url, check.sourceHashName, check.verifySsl !== false);
    if ('error' in exp) return exp;
    expected = exp.ok;
  }
  try {
    const localPath = await cacheUrl(c.url, urlOptions(ctx, check.verifySsl !== false), expected);
    return { ok: { url: c.url, localPath, ...(check.skipVerify ? {} : { hash }), remote: true } };
  } catch (err) {
    return { error: `Failed to cache ${redact(c.url)}: ${errorText(err)}` };
  }
}

/** One `type=hex` expectation. */
export interface ExpectedHash {
  type: string;
  hex: string;
}

function parseHashWord(word: string): ExpectedHash | undefined {
  const m = /^(?:(\w+)[=:])?([0-9a-fA-F]+)$/.exec(word.trim());
  if (!m) return undefined;
  const hex = m[2]!.toLowerCase();
  const type = m[1]?.toLowerCase() ?? HASH_LENGTHS[hex.length];
  if (!type || !HASH_TYPES.has(type)) return undefined;
  return { type, hex };
}

/**
 * Salt's source_hash: `sha256=<hex>` (or a bare hex digest, its type from its length), or a
 * hash file (salt:// or local) whose line naming the source's file (or its only digest) is used.
 */
export async function expectedHash(ctx: StateContext, sourceHash: string, sourceUrl: string, hashName?: string, verifySsl = true): Promise<Outcome<ExpectedHash>> {
  const direct = parseHashWord(sourceHash);
  if (direct) return { ok: direct };
  if (!isSalt(sourceHash) && !isRemoteUrl(sourceHash) && localOf(sourceHash) === undefined) {
    return { error: `Invalid source_hash '${sourceHash}'; give '<type>=<hex digest>' (e.g. sha256=...) or the salt://, http(s):// URL or path of a hash file` };
  }
  let hashFile: string;
  if (isRemoteUrl(sourceHash)) {
    try {
      hashFile = await cacheUrl(sourceHash, urlOptions(ctx, verifySsl));
    } catch (err) {
      return { error: `Source hash file ${redact(sourceHash)} not found; ${errorText(err)}` };
    }
  } else {
    const file = await resolveSource(ctx, sourceHash);
    if ('error' in file) return { error: `Source hash file ${sourceHash} not found; ${file.error}` };
    hashFile = file.ok.localPath;
  }
  const text = await readFile(hashFile, 'utf8');
  const base = hashName ?? sourceUrl.split('/').pop() ?? '';
  const found: ExpectedHash[] = [];
  for (const line of text.split('\n')) {
    const words = line.trim().split(/\s+/);
    const h = words[0] ? parseHashWord(words[0]) : undefined;
    if (!h) continue;
    const named = words.slice(1).join(' ').replace(/^\*/, '');
    if (named !== '' && (named === base || named.endsWith(`/${base}`))) return { ok: h };
    found.push(h);
  }
  if (found.length === 1) return { ok: found[0]! };
  return { error: `Source hash file ${sourceHash} has no hash for ${base}; add a line '<digest>  ${base}'` };
}

export async function digestOf(localPath: string, type: string): Promise<string> {
  return createHash(type)
    .update(await readFile(localPath))
    .digest('hex');
}

/** Checks the bytes of a resolved source against source_hash; a mismatch comment says both digests. */
export async function verifySource(ctx: StateContext, src: ResolvedSource, sourceHash: string | undefined, hashName?: string, verifySsl = true): Promise<string | undefined> {
  const wanted = sourceHash ?? src.hash;
  if (wanted === undefined || wanted === '') return undefined;
  const exp = await expectedHash(ctx, wanted, src.url, hashName, verifySsl);
  if ('error' in exp) return exp.error;
  const actual = await digestOf(src.localPath, exp.ok.type);
  if (actual !== exp.ok.hex && src.remote) {
    // salt/modules/file.py manage_file's words for a web source
    return `Specified ${exp.ok.type} checksum for ${redact(src.url)} (${exp.ok.hex}) does not match actual checksum (${actual}). If the 'source_hash' value refers to a remote file with multiple possible matches, then it may be necessary to set 'source_hash_name'.`;
  }
  if (actual !== exp.ok.hex) {
    return `Specified ${exp.ok.type} checksum for ${src.url} (${exp.ok.hex}) does not match actual checksum (${actual}); fix source_hash or the source file`;
  }
  return undefined;
}
