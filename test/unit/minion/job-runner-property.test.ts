// The job runner under random sequences of submissions (state runs with and without queue=True
// or concurrent=True, other jobs, with and without a timeout), finishes, kills and clock steps
// (issue 24): a run never rejects (an illegal lifecycle move would), no more than
// max_concurrent_jobs functions run at once, at most one state run holds the lock, nothing starts
// twice or after being refused, and once everything running has finished every job has answered
// and neither a slot, the lock nor the lock file is left behind.

import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { JobRunner } from '../../../src/minion/index.js';
import type { Job, Return } from '../../../src/protocol/index.js';
import { createMinionRegistry } from '../../../src/state/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { manualExecutor } from '../../helpers/manual-executor.js';
import { settle } from '../../helpers/wait.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-jrp-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const KINDS = ['state', 'state-queue', 'state-concurrent', 'plain'] as const;
type Kind = (typeof KINDS)[number];
type Step = { t: 'submit'; kind: Kind; timeoutS: number | null } | { t: 'finish'; pick: number } | { t: 'kill'; pick: number } | { t: 'advance'; s: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('submit' as const), kind: fc.constantFrom(...KINDS), timeoutS: fc.option(fc.integer({ min: 1, max: 8 })) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('finish' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('kill' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('advance' as const), s: fc.integer({ min: 1, max: 6 }) }) },
);

const takesLock = (k: Kind): boolean => k === 'state' || k === 'state-queue';

let seq = 0;
function jobOf(kind: Kind, timeoutS: number | null): Job {
  const jid = `2026120701${String(++seq).padStart(10, '0')}`;
  const [fun, kwarg] =
    kind === 'plain' ? ['test.sleep', {}] : kind === 'state-queue' ? ['state.sls', { queue: true }] : kind === 'state-concurrent' ? ['state.apply', { concurrent: true }] : ['state.apply', {}];
  return { t: 'job', jid, fun, arg: kind === 'plain' ? [1] : [], kwarg, tgt: '*', tgtType: 'glob', ...(timeoutS === null ? {} : { timeout: timeoutS }) };
}

interface Submitted {
  job: Job;
  kind: Kind;
  ret?: Return;
  rejected?: unknown;
}

it('no job is lost, no lock or slot leaks, slots never exceed max_concurrent_jobs, one state run at a time', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.array(step, { maxLength: 30 }), async (max, withLockFile, steps) => {
      const cachedir = path.join(tmp, String(++run));
      const clock = new FakeClock();
      const m = manualExecutor();
      const r = new JobRunner({
        registry: createMinionRegistry(),
        minionId: 'm1',
        grains: () => ({ id: 'm1' }),
        config: withLockFile ? { cachedir } : {},
        logger: silentLogger(),
        executor: m.executor,
        maxConcurrent: max,
        clock,
      });
      const subs: Submitted[] = [];
      const submit = (kind: Kind, timeoutS: number | null): Submitted => {
        const s: Submitted = { job: jobOf(kind, timeoutS), kind };
        subs.push(s);
        r.run(s.job).then(
          (ret) => (s.ret = ret),
          (err: unknown) => (s.rejected = err),
        );
        return s;
      };
      const check = (): void => {
        for (const s of subs) assert.equal(s.rejected, undefined, `job ${s.job.jid} rejected: ${String(s.rejected)}`);
        assert.ok(m.live.size <= max, `${m.live.size} functions running, max_concurrent_jobs ${max}`);
        const lockHolders = subs.filter((s) => takesLock(s.kind) && m.live.has(s.job.jid));
        assert.ok(lockHolders.length <= 1, `${lockHolders.length} state runs hold the lock`);
        assert.equal(new Set(m.started).size, m.started.length, 'a job started twice');
        for (const s of subs) if (s.ret?.error?.code === 'STATE_RUN_IN_PROGRESS') assert.ok(!m.started.includes(s.job.jid), 'a refused state run ran');
        assert.equal(r.active, subs.filter((s) => s.ret === undefined).length, 'the job table holds exactly the jobs not answered yet');
      };
      for (const st of steps) {
        if (st.t === 'submit') submit(st.kind, st.timeoutS);
        else if (st.t === 'finish') {
          const live = [...m.live.keys()];
          if (live.length > 0) m.finish(live[st.pick % live.length]!);
        } else if (st.t === 'kill') {
          const open = subs.filter((s) => s.ret === undefined);
          if (open.length > 0) assert.equal(r.kill(open[st.pick % open.length]!.job.jid), true);
        } else clock.advance(st.s * 1000);
        await settle();
        check();
      }
      // drain: finish whatever runs until every job has answered
      for (let i = 0; i < 200 && subs.some((s) => s.ret === undefined); i++) {
        for (const jid of [...m.live.keys()]) m.finish(jid);
        await settle();
        check();
      }
      for (const s of subs) assert.equal(s.ret?.jid, s.job.jid, `job ${s.job.jid} (${s.kind}) never answered`);
      assert.equal(r.active, 0);
      assert.equal(m.live.size, 0);
      // nothing leaked: a state run without queue=True starts at once, and all slots are free
      const probes = [submit('state', null), ...Array.from({ length: max - 1 }, () => submit('plain', null))];
      await settle();
      for (const p of probes) assert.ok(m.live.has(p.job.jid), `${p.kind} probe did not start: a lock or a slot leaked`);
      for (const p of probes) m.finish(p.job.jid);
      await settle();
      for (const p of probes) assert.equal(p.ret?.success, true);
      if (withLockFile) assert.equal(fs.existsSync(path.join(cachedir, 'state-run.lock')), false, 'the lock file was left behind');
    }),
    { numRuns: 120 },
  );
});
