// The text `brine doctor id` and `brine minion --show-id` print: one OK/WARN/FAIL line per
// check (each WARN and FAIL with its fix), the candidates indented under the ID line.

import type { IdCandidate, CandidateVerdict } from './id-candidates.js';
import type { IdCheck } from './id-checks.js';
import type { IdResolution } from './minion-id.js';

const VERDICT_TEXT: ReadonlyMap<CandidateVerdict, string> = new Map<CandidateVerdict, string>([
  ['kept', 'kept'],
  ['empty', 'skipped: empty'],
  ['duplicate', 'skipped: duplicate'],
  ['localhost_like', 'skipped: localhost-like'],
  ['not_loopback_line', 'skipped: not on a 127.*/::1 line (Salt reads only those and single-name lines)'],
  ['loopback_address', 'skipped: loopback address'],
  ['unresolved', 'skipped: localhost does not resolve'],
]);

function candidateLine(c: IdCandidate, chosen: boolean, width: number): string {
  const verdict = chosen ? 'chosen' : (VERDICT_TEXT.get(c.verdict) ?? c.verdict);
  const detail = c.detail ? ` [${c.detail}]` : '';
  return `       ${c.source.padEnd(20)} ${(c.value === '' ? '""' : c.value).padEnd(width)} ${verdict}${detail}`;
}

export interface IdReport {
  text: string;
  /** No WARN or FAIL line. */
  ok: boolean;
}

export function formatIdReport(res: IdResolution, checks: readonly IdCheck[]): IdReport {
  const lines: string[] = [];
  for (const check of checks) {
    const tag = check.level.toUpperCase().padEnd(4);
    lines.push(`${tag} ${check.topic}: ${check.message}${check.fix ? `. Fix: ${check.fix}` : ''}`);
    if (check.topic === 'id' && check.cause !== 'ip_derived') lines.push(...candidateLines(res));
  }
  return { text: `${lines.join('\n')}\n`, ok: checks.every((c) => c.level === 'ok') };
}

function candidateLines(res: IdResolution): string[] {
  const out: string[] = [];
  if (res.steps.length > 0) out.push(...res.steps.map((s) => `     ${s}`));
  if (res.candidates.length === 0) {
    if (res.generated?.source === 'id_function') out.push(`     id_function gave ${res.generated.id}`);
    return out;
  }
  const generatedNote = res.generated && res.source !== res.generated.source ? ` (today they give ${res.generated.id}; not used: the ID comes from ${res.source})` : '';
  out.push(`     candidates in Salt's order${generatedNote}; localhost-like means starting with localhost, ip6-, ipv6-, 127.<digit>, 0.0.0.0, ::1, fe00:: or fe02:: (case-sensitive):`);
  const width = Math.min(40, Math.max(...res.candidates.map((c) => c.value.length), 2));
  const chosen = res.candidates.find((c) => c.verdict === 'kept');
  for (const c of res.candidates) out.push(candidateLine(c, c === chosen && res.generated?.source === c.source, width));
  if (!chosen) out.push(`       ${'fallback'.padEnd(20)} ${'localhost'.padEnd(width)} ${res.generated?.source === 'fallback' ? 'chosen' : 'unused'}: nothing survived the filter`);
  return out;
}
