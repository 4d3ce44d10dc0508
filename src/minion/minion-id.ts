// Where the minion's ID comes from, in Salt's order (salt-reference §2.1): config `id` as is,
// else the cached minion_id, else id_function or the generated candidates, then lowercase,
// domain removal, caching and append_domain. The result says which source won and why.

import * as path from 'node:path';
import { BrineError } from '../util/errors.js';
import { minionIdProblem } from '../util/minion-id.js';
import type { MinionOptions } from '../config/index.js';
import { generateCandidates, type CandidateSource, type IdCandidate } from './id-candidates.js';
import { MINION_ID_FILE, readIdCache, writeIdCache } from './id-cache.js';
import { systemIdSources, type FqdnAnswer, type IdSources } from './id-sources.js';

export type IdSource = 'config' | 'cache' | 'id_function' | CandidateSource | 'fallback';

export interface IdCacheState {
  file: string;
  /** minion_id_caching */
  enabled: boolean;
  /** What the file held (its first line), when it exists. */
  found?: string;
  /** The machine id recorded in the file. */
  machineId?: string;
  /** The cached value became the ID. */
  used: boolean;
  /** Set when the cache was written by this resolution. */
  written?: boolean;
  writeError?: string;
}

export interface IdResolution {
  id: string;
  source: IdSource;
  /** Salt's is_ipv4 flag: only for a generated ID (it keeps append_domain off). */
  isIp: boolean;
  /** Every candidate considered, in Salt's order; empty when nothing was generated. */
  candidates: IdCandidate[];
  fqdn?: FqdnAnswer;
  /** What generation gives today (after lowercase and domain removal), when it ran. */
  generated?: { id: string; source: IdSource };
  cache: IdCacheState;
  /** This machine's id, when it has one. */
  machineId?: string;
  /** Changes applied to the raw value, in order ("lowercased KING_BOB to king_bob"). */
  steps: string[];
  /** Set when the cache file was written by this resolution. */
  cachedTo?: string;
}

/** @deprecated name kept for callers of the simplified resolver. */
export type ResolvedId = IdResolution;

export interface ResolveIdOptions {
  configuredId: string;
  /** The minion_id cache file (Salt: <config dir>/minion_id). */
  cacheFile: string;
  /** minion_id_caching */
  caching: boolean;
  /** Write a generated ID to the cache (the daemon does, as salt-minion; diagnostics do not). */
  writeCache: boolean;
  lowercase: boolean;
  /** minion_id_remove_domain: true cuts at the first dot, a string removes that suffix. */
  removeDomain: string | boolean;
  /** append_domain; undefined or empty means off. */
  appendDomain?: string | undefined;
  /** Salt's id_function: replaces candidate generation (brine has no config for it; tests inject it). */
  idFunction?: () => Promise<unknown>;
  /** Also generate candidates when config or cache decided, to explain and compare. */
  explain?: boolean;
  sources?: IdSources;
}

/** The resolver's options from a minion config. */
export function idOptionsFrom(opts: MinionOptions): Omit<ResolveIdOptions, 'writeCache'> {
  return {
    configuredId: opts.id,
    cacheFile: path.join(opts.config_dir, MINION_ID_FILE),
    caching: opts.minion_id_caching,
    lowercase: opts.minion_id_lowercase,
    removeDomain: opts.minion_id_remove_domain,
    appendDomain: opts.append_domain,
  };
}

/** Salt's ID algorithm for this config; a generated ID is cached, as salt-minion does (Minion.resolveId, brine call). */
export function resolveConfiguredId(opts: MinionOptions, extra: Partial<ResolveIdOptions> = {}): Promise<IdResolution> {
  return resolveMinionId({ ...idOptionsFrom(opts), writeCache: true, ...extra });
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function isIpv4(id: string): boolean {
  return IPV4.test(id);
}

/** Salt's remove_domain_from_fqdn. */
export function removeDomain(id: string, domain: string | boolean): string {
  if (domain === true) return id.includes('.') ? id.slice(0, id.indexOf('.')) : id;
  if (typeof domain === 'string' && domain !== '') {
    const suffix = `.${domain}`;
    if (id.toUpperCase().endsWith(suffix.toUpperCase())) return id.slice(0, id.length - suffix.length);
  }
  return id;
}

/** Salt's _append_domain: plain endswith, and an ID ending in a dot is left alone. */
export function appendDomain(id: string, domain: string): string {
  if (id.endsWith(domain) || id.endsWith('.')) return id;
  return `${id}.${domain}`;
}

interface Generated {
  id: string;
  source: IdSource;
  candidates: IdCandidate[];
  fqdn?: FqdnAnswer;
  steps: string[];
}

async function generate(opts: ResolveIdOptions, src: IdSources): Promise<Generated> {
  let raw: string;
  let source: IdSource;
  let candidates: IdCandidate[] = [];
  let fqdn: FqdnAnswer | undefined;
  if (opts.idFunction) {
    const value = await opts.idFunction();
    // Salt logs an error and exits 1 for a non-string or empty answer
    if (typeof value !== 'string' || value === '') throw new BrineError('INVALID_ID', `id_function returned ${JSON.stringify(value)}, not a non-empty string`);
    raw = value;
    source = 'id_function';
  } else {
    const list = await generateCandidates(src);
    candidates = list.candidates;
    fqdn = list.fqdn;
    const first = list.kept[0];
    raw = first ?? 'localhost';
    source = first === undefined ? 'fallback' : list.candidates.find((c) => c.verdict === 'kept')!.source;
  }
  const steps: string[] = [];
  let id = raw;
  if (opts.lowercase && id.toLowerCase() !== id) {
    steps.push(`minion_id_lowercase changed ${id} to ${id.toLowerCase()}`);
    id = id.toLowerCase();
  }
  if (opts.removeDomain) {
    const cut = removeDomain(id, opts.removeDomain);
    if (cut !== id) steps.push(`minion_id_remove_domain changed ${id} to ${cut}`);
    id = cut;
  }
  const out: Generated = { id, source, candidates, steps };
  if (fqdn) out.fqdn = fqdn;
  return out;
}

export async function resolveMinionId(opts: ResolveIdOptions): Promise<IdResolution> {
  const src = opts.sources ?? systemIdSources;
  const cache: IdCacheState = { file: opts.cacheFile, enabled: opts.caching, used: false };
  const machineId = await src.machineId();
  let decided: { id: string; source: IdSource } | undefined;

  if (opts.configuredId) {
    decided = { id: opts.configuredId, source: 'config' };
  } else if (opts.caching) {
    const cached = readIdCache(opts.cacheFile);
    if (cached) {
      cache.found = cached.value;
      if (cached.machineId) cache.machineId = cached.machineId;
      if (cached.value !== '' && cached.value !== 'localhost') {
        decided = { id: cached.value, source: 'cache' };
        cache.used = true;
      }
    }
  }

  // generation runs when it decides, and also after a cache hit: a cache that differs from
  // what the host gives today is how a cloned image or a fixed /etc/hosts shows itself
  const needGenerated = decided === undefined || decided.source === 'cache' || opts.explain === true;
  const gen = needGenerated ? await generate(opts, src) : undefined;

  const res: IdResolution = {
    id: decided?.id ?? gen!.id,
    source: decided?.source ?? gen!.source,
    isIp: false,
    candidates: gen?.candidates ?? [],
    cache,
    steps: decided ? [] : [...gen!.steps],
  };
  if (gen) res.generated = { id: gen.id, source: gen.source };
  if (gen?.fqdn) res.fqdn = gen.fqdn;
  if (machineId) res.machineId = machineId;

  if (!decided) {
    res.isIp = isIpv4(res.id);
    // brine does not cache an ID it will refuse: the cache would outlive the fix (seed 001);
    // Salt caches even `localhost`, which it then ignores on the next read, so nothing changes
    if (opts.writeCache && opts.caching && minionIdProblem(res.id) === undefined) {
      const error = writeIdCache(opts.cacheFile, res.id, machineId);
      if (error === undefined) {
        cache.written = true;
        if (machineId) cache.machineId = machineId;
        res.cachedTo = opts.cacheFile;
      } else cache.writeError = error;
    }
  }

  if (opts.appendDomain && !res.isIp) {
    const appended = appendDomain(res.id, opts.appendDomain);
    if (appended !== res.id) res.steps.push(`append_domain changed ${res.id} to ${appended}`);
    res.id = appended;
  }
  return res;
}
