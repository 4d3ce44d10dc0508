// A `brine events` stream that is known to be subscribed before a test causes the events it
// waits for: instead of sleeping "a moment", publish a test.ping to a connected minion until its
// job_published event shows up on the stream (the stream is then registered with the master).

import type { Cluster, Proc } from './cluster.js';
import { waitUntil } from './cluster.js';

export interface EventLine {
  tag: string;
  data: Record<string, unknown>;
}

export class EventStream {
  private constructor(readonly proc: Proc) {}

  /**
   * Starts `brine events --kind <kinds>` (plus job_published, for the readiness probe) and
   * resolves once the stream has seen a job it caused on `probeMinion`.
   */
  static async open(cluster: Cluster, kinds: readonly string[], probeMinion: string, opts: { timeoutSeconds?: number } = {}): Promise<EventStream> {
    const all = [...new Set([...kinds, 'job_published'])];
    const args = ['events', '-c', cluster.masterConfigDir, '--kind', all.join(','), '--timeout', String(opts.timeoutSeconds ?? 120)];
    const stream = new EventStream(cluster.spawnBrine('events', args));
    await waitUntil(
      async () => {
        const r = await cluster.brine(['run', probeMinion, 'test.ping', '-v']);
        const jid = /Executing job with jid (\d+)/.exec(r.stdout + r.stderr)?.[1];
        if (jid === undefined) return false;
        // the stream prints asynchronously; give this probe's event its own deadline
        return waitUntil(() => stream.proc.output.includes(`salt/job/${jid}/new\t`), 2000, `job ${jid} on the event stream`).then(
          () => true,
          () => false,
        );
      },
      15_000,
      `the event stream to show a probe job on ${probeMinion}`,
    );
    return stream;
  }

  /** Lines whose tag starts with `prefix`, parsed. */
  lines(prefix: string): EventLine[] {
    return this.proc.output
      .split('\n')
      .filter((l) => l.startsWith(prefix))
      .map((l) => {
        const [tag, json] = l.split('\t');
        return { tag: tag!, data: JSON.parse(json!) as Record<string, unknown> };
      });
  }

  async waitFor(prefix: string, count: number, timeoutMs: number): Promise<EventLine[]> {
    return waitUntil(() => (this.lines(prefix).length >= count ? this.lines(prefix) : undefined), timeoutMs, `${count} event(s) tagged ${prefix}*\n${this.proc.output}`);
  }

  async close(): Promise<void> {
    await this.proc.kill('SIGINT');
  }
}

/**
 * `brine events --out json` output without the return events of pillar.* jobs: those carry the
 * pillar, as Salt's do; nothing else on the bus may.
 */
export function outsidePillarReturns(output: string): string {
  return output
    .split('\n')
    .filter((l) => {
      if (l.trim() === '') return false;
      const e = JSON.parse(l) as { tag: string; data: { fun?: unknown } };
      return !(/^salt\/job\/\d+\/ret\//.test(e.tag) && typeof e.data.fun === 'string' && e.data.fun.startsWith('pillar.'));
    })
    .join('\n');
}
