// Grains: collected at start (core, synced custom grains, the grains file, `grains:` from the
// config), sent to each master as it signs in (so its data cache is fresh before our returns and
// before it renders our pillar), and collected and sent again on saltutil.refresh_grains.

import type { Logger } from '../../util/logger.js';
import type { MinionOptions } from '../../config/index.js';
import { MAX_GRAINS_JSON, grainsSchema } from '../../protocol/index.js';
import type { Grains } from '../../modules/index.js';
import type { ExtmodProblem, ExtmodProblems } from '../extmod-problems.js';
import { collectMinionGrains } from '../minion-grains.js';
import type { MinionLink } from '../minion-link.js';
import type { LinkAccess, MinionFeature } from './feature.js';

export class GrainsFeature implements MinionFeature {
  readonly name = 'grains';
  private grains: Grains = {};

  constructor(
    private readonly parts: { opts: MinionOptions; id: string; logger: Logger; links: LinkAccess },
    /** Where failing custom grain files are reported (brine doctor). */
    private readonly problems: ExtmodProblems,
  ) {}

  /** The grains jobs, targeting and the pillar see now. */
  get current(): Grains {
    return this.grains;
  }

  async start(): Promise<void> {
    await this.refresh();
  }

  onReady(link: MinionLink): void {
    this.send(link);
  }

  /**
   * Re-collects the grains and sends them to every connected master (saltutil.refresh_grains);
   * a master connected later gets them at sign-in. Resolves to the custom grain files that failed.
   */
  async refresh(): Promise<ExtmodProblem[]> {
    const { id, opts, logger, links } = this.parts;
    const { grains, problems } = await collectMinionGrains({ id, config: opts, logger });
    this.grains = grains;
    for (const link of links.all()) this.send(link);
    return this.problems.note(['grains'], problems);
  }

  /** Sends the grains for the master's minion data cache, unless they exceed the protocol bound. */
  private send(link: MinionLink): void {
    const grains = this.grains as Record<string, unknown>;
    const problem = grainsSchema.check({ t: 'grains', grains }, 'grains');
    if (problem !== undefined) {
      // the master would refuse the message and drop the connection; it treats us as "no data" instead
      this.parts.logger.error(
        { problem },
        `not sending grains to the master: ${problem} (limit ${MAX_GRAINS_JSON} characters of JSON); grain targets will always include this minion until the grains: config is made smaller`,
      );
      return;
    }
    link.send({ t: 'grains', grains });
  }
}
