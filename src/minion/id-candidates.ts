// Salt's `_generate_minion_id`: the ordered, de-duplicated, localhost-filtered candidate list
// (salt-reference §2.2), keeping every name it looked at and why it was kept or skipped.

import { isLocalhostLike } from '../util/minion-id.js';
import type { FqdnAnswer, IdSources } from './id-sources.js';
import { pyLines, pySplit } from './py-text.js';
import { errorMessage } from '../util/errors.js';

/** Where a generated candidate came from, in Salt's order. */
export type CandidateSource = 'fqdn' | 'nodename' | 'hostname' | 'localhost_canonname' | 'etc_hostname' | 'etc_nodename' | 'etc_hosts' | 'ip_address';

export type CandidateVerdict =
  /** On Salt's list. */
  | 'kept'
  | 'empty'
  /** Already on the list from an earlier source. */
  | 'duplicate'
  /** Matched Salt's localhost filter (prefix, case-sensitive). */
  | 'localhost_like'
  /** An /etc/hosts name on a line whose address is not 127.* or ::1: Salt never reads those. */
  | 'not_loopback_line'
  /** A loopback address from the interface list (dropped before the filter, as Salt does). */
  | 'loopback_address'
  /** `localhost` could not be resolved for its canonical name. */
  | 'unresolved';

export interface IdCandidate {
  value: string;
  source: CandidateSource;
  verdict: CandidateVerdict;
  /** Where exactly (a file line) or which earlier candidate it duplicates. */
  detail?: string;
}

export interface CandidateList {
  /** Everything considered, in order. */
  candidates: IdCandidate[];
  /** Salt's list: the kept values in order. */
  kept: string[];
  /** The getfqdn answer, kept for the warning that explains a localhost-like FQDN. */
  fqdn: FqdnAnswer;
}

export const ID_FILES: ReadonlyArray<readonly [string, CandidateSource]> = [
  ['/etc/hostname', 'etc_hostname'],
  ['/etc/nodename', 'etc_nodename'],
  ['/etc/hosts', 'etc_hosts'],
];

/** Salt's DistinctList.append, recording the verdict instead of dropping silently. */
class Candidates {
  readonly all: IdCandidate[] = [];
  readonly kept: string[] = [];

  offer(value: string, source: CandidateSource, detail?: string): void {
    let verdict: CandidateVerdict = 'kept';
    let why = detail;
    if (value === '') verdict = 'empty';
    else if (this.kept.includes(value)) {
      verdict = 'duplicate';
      const first = this.all.find((c) => c.verdict === 'kept' && c.value === value);
      why = [detail, first ? `same as ${first.source}` : undefined].filter(Boolean).join('; ');
    } else if (isLocalhostLike(value)) verdict = 'localhost_like';
    if (verdict === 'kept') this.kept.push(value);
    this.record({ value, source, verdict, ...(why ? { detail: why } : {}) });
  }

  record(c: IdCandidate): void {
    this.all.push(c);
  }
}

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1';
}

export async function generateCandidates(src: IdSources): Promise<CandidateList> {
  const list = new Candidates();
  const hostname = await src.hostname();
  const fqdn = await src.fqdn(hostname);
  list.offer(fqdn.name, 'fqdn');
  list.offer(await src.nodeName(), 'nodename');
  list.offer(hostname, 'hostname');

  // Salt asks the resolver about localhost only when the three host names gave nothing
  if (list.kept.length === 0) {
    try {
      for (const name of await src.localhostCanonNames()) list.offer(name, 'localhost_canonname');
    } catch (err) {
      list.record({ value: 'localhost', source: 'localhost_canonname', verdict: 'unresolved', detail: errorMessage(err) });
    }
  }

  for (const [file, source] of ID_FILES) {
    const text = await src.readFile(file);
    if (text === undefined) continue;
    pyLines(text).forEach((line, i) => {
      const tokens = pySplit(line.split('#')[0] ?? '');
      if (tokens.length === 0) return;
      const where = `${file} line ${i + 1}`;
      // Salt: hst[0][:4] in ("127.", "::1") or a single token
      const head = tokens[0]!.slice(0, 4);
      if (head === '127.' || head === '::1' || tokens.length === 1) {
        for (const t of tokens) list.offer(t, source, where);
      } else {
        for (const t of tokens.slice(1)) list.record({ value: t, source, verdict: 'not_loopback_line', detail: `${where} (${tokens[0]})` });
      }
    });
  }

  for (const address of await src.ipv4Addresses()) {
    if (isLoopback(address)) list.record({ value: address, source: 'ip_address', verdict: 'loopback_address' });
    else list.offer(address, 'ip_address');
  }
  return { candidates: list.all, kept: list.kept, fqdn };
}
