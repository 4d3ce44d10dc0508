// Builds the minion's features from the shared parts, in the order they depend on one another,
// and lists them in the order each moment reaches them. `file_client: local` is decided here
// once: it picks where the pillar, salt:// files and the mine come from, and when startup_states
// run.

import { toBrineError } from '../../util/errors.js';
import { FeatureList } from '../../util/features.js';
import { ExtmodProblems } from '../extmod-problems.js';
import type { MinionLink } from '../minion-link.js';
import { RecentJids } from '../recent-jids.js';
import type { ReturnQueue } from '../return-queue.js';
import { MinionScheduler } from '../schedule/minion-scheduler.js';
import { ControlFeature } from './control.js';
import { BeaconsFeature } from './beacons.js';
import { EventsFeature } from './events.js';
import { ExtensionsFeature } from './extmods.js';
import type { LinkMessage, MinionParts } from './feature.js';
import { LocalFiles, MasterFiles } from './files.js';
import { GrainsFeature } from './grains.js';
import { JobPort } from './job-port.js';
import { JobsFeature } from './jobs.js';
import { MallocTrim } from './malloc-trim.js';
import { LocalMineFeature, MasterMineFeature, type MineParts } from './mine.js';
import { LocalPillar, MasterPillar } from './pillar.js';
import { MasterPresence } from './presence.js';
import { MinionReactorFeature } from './reactor.js';
import { MinionReturners } from './returners.js';
import { ReturnsFeature } from './returns.js';
import { StartupStates } from './startup.js';
import { minionStatus } from './status.js';

/** How many recent jids the minion remembers (Salt's minion_jid_queue_hwm is 100; hot/hot replays need more). */
const RECENT_JIDS = 1000;

export type MinionFeatures = ReturnType<typeof buildMinionFeatures>;

export function buildMinionFeatures(parts: MinionParts, queue: ReturnQueue) {
  const { opts, id, logger, clock, links } = parts;
  const local = opts.file_client === 'local';
  const startedAt = clock.now();
  const jobPort = new JobPort();
  const recent = new RecentJids(RECENT_JIDS);
  const problems = new ExtmodProblems(opts.cachedir);

  const presence = new MasterPresence(clock, logger);
  const returns = new ReturnsFeature(queue, links);
  const returners = new MinionReturners(parts);
  const trim = new MallocTrim();
  const grains = new GrainsFeature(parts, problems);
  const pillarParts = { opts, id, logger, grains: () => grains.current };
  const pillar = local ? new LocalPillar(pillarParts) : new MasterPillar(pillarParts, links, clock);
  const files = local ? new LocalFiles(opts) : new MasterFiles(opts, links, clock);
  const extmods = new ExtensionsFeature(parts, problems, jobPort, grains, pillar);
  const mineParts: MineParts = { opts, id, clock, logger, grains: () => grains.current, pillar: pillar.store, jobs: jobPort, registry: extmods };
  const mine = local ? new LocalMineFeature(mineParts) : new MasterMineFeature(mineParts, links);
  const startup = new StartupStates(parts, jobPort, pillar instanceof MasterPillar ? { at: 'sign-in', pillarFetched: () => pillar.fetchedAtSignIn() } : { at: 'start' });
  const schedule = new MinionScheduler({
    opts,
    id,
    logger,
    clock,
    pillar: pillar.store,
    run: (job) => jobPort.run(job),
    claimJid: (jid) => recent.add(jid),
    deliver: (ret) => {
      returns.own(ret);
      trim.soon();
    },
    afterRun: (job, ret, name) => returners.afterScheduled(job, ret, name),
  });
  const events = new EventsFeature(parts);
  const beacons = new BeaconsFeature(parts, pillar.store, events, jobPort);
  const jobs = new JobsFeature(parts, recent, {
    grains,
    pillar,
    files,
    mine,
    schedule: schedule.functions,
    extmods,
    returns,
    returners,
    events,
    beacons: beacons.control,
    afterJob: () => trim.soon(),
  });
  jobPort.bind(jobs.runner);
  // reactor: on the minion, its own bus's events run caller. reactions through the job runner
  const reactor = new MinionReactorFeature(parts, { events, jobs: jobPort, newJid: () => jobs.newJid(), id, files, grains, pillar });
  const status = () => minionStatus({ id, startedAt, links, presence, returns, schedule, extmods, mine });
  const control = new ControlFeature(parts, status, { presence, pillar, jobs, returns, events });

  // the order of every moment: at a sign-in the grains go first, so the master's data cache is
  // fresh before our returns, and before the pillar request on the same ordered session (the
  // master renders with them); the returns it is owed go last. Stopping runs in reverse: the
  // control socket closes and the returns stop being queued before the jobs are aborted.
  const list = new FeatureList<MinionLink, LinkMessage>(
    [presence, extmods, grains, pillar, files, schedule, startup, mine, returners, events, jobs, beacons, reactor, returns, control, trim],
    (feature, hook, err) => logger.error({ feature, hook, err: toBrineError(err).message }, `the minion's ${feature} feature failed in ${hook}; the other features go on`),
  );
  return { list, status, presence, grains, pillar, files, extmods, schedule, jobs, returns, returners, events, beacons, reactor, trim };
}
