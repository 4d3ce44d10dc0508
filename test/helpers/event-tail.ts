// `brine events` with no filter (every Salt event, typed or fired by tag), known to be subscribed:
// a test.ping to `probeMinion` is published until its salt/job/<jid>/new line shows on the stream.

import type { Cluster, Proc } from './cluster.js';
import { waitUntil } from './cluster.js';

export interface EventTail {
  readonly proc: Proc;
  /** Lines whose tag starts with `prefix`, parsed. */
  lines(prefix: string): { tag: string; data: Record<string, unknown> }[];
  waitFor(prefix: string, count: number, timeoutMs: number): Promise<{ tag: string; data: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

export async function openEventStream(cluster: Cluster, probeMinion: string): Promise<EventTail> {
  const proc = cluster.spawnBrine('events', ['events', '-c', cluster.masterConfigDir, '--timeout', '600']);
  const lines = (prefix: string) =>
    proc.output
      .split('\n')
      .filter((l) => l.startsWith(prefix) && l.includes('\t'))
      .map((l) => {
        const i = l.indexOf('\t');
        return { tag: l.slice(0, i), data: JSON.parse(l.slice(i + 1)) as Record<string, unknown> };
      });
  await waitUntil(
    async () => {
      const r = await cluster.brine(['run', probeMinion, 'test.ping', '-v']);
      const jid = /Executing job with jid (\d+)/.exec(r.stdout + r.stderr)?.[1];
      if (jid === undefined) return false;
      return waitUntil(() => proc.output.includes(`salt/job/${jid}/new\t`), 2000, `job ${jid} on the event stream`).then(
        () => true,
        () => false,
      );
    },
    20_000,
    `the event stream to show a probe job on ${probeMinion}`,
  );
  return {
    proc,
    lines,
    waitFor: (prefix, count, timeoutMs) => waitUntil(() => (lines(prefix).length >= count ? lines(prefix) : undefined), timeoutMs, `${count} event(s) tagged ${prefix}*\n${proc.output.slice(-4000)}`),
    close: () => proc.kill('SIGINT'),
  };
}
