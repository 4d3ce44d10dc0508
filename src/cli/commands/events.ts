// `brine events`: the master's event stream, one `tag {json}` line per event (as Salt's
// state.event prints), until interrupted, --count events, or --timeout seconds.

import type { Command } from 'commander';
import { controlSocketPath } from '../../master/control-socket-path.js';
import { EVENT_KINDS, type EventKind } from '../../protocol/index.js';
import { BrineError, isErrorCode } from '../../util/errors.js';
import { printable, printableJson } from '../../util/printable.js';
import { openControl } from '../control-client.js';
import { masterOptions, type ConfigFlags, exitWith } from '../common.js';

interface EventsFlags extends ConfigFlags {
  kind?: string[];
  count?: string;
  timeout?: string;
  out?: string;
}

async function stream(flags: EventsFlags): Promise<number> {
  const opts = masterOptions(flags);
  const kinds = (flags.kind ?? []).flatMap((k) => k.split(','));
  for (const k of kinds) if (!(EVENT_KINDS as readonly string[]).includes(k)) throw new BrineError('USAGE', `unknown event kind '${k}': use ${EVENT_KINDS.join(', ')}`);
  const count = flags.count === undefined ? Infinity : Number(flags.count);
  const timeout = flags.timeout === undefined ? 0 : Number(flags.timeout);
  const conn = await openControl(controlSocketPath(opts));
  let seen = 0;
  await new Promise<void>((resolve, reject) => {
    const timer = timeout > 0 ? setTimeout(resolve, timeout * 1000) : undefined;
    // the --timeout timer would keep the process alive after Ctrl-C
    process.once('SIGINT', () => {
      if (timer) clearTimeout(timer);
      resolve();
    });
    conn.onMessage((m) => {
      if (m.t === 'error') reject(new BrineError(isErrorCode(m.code) ? m.code : 'INTERNAL', m.message));
      if (m.t !== 'event' || seen >= count) return;
      // event data carries minion-supplied text (agent strings, reasons): one safe line each
      process.stdout.write(flags.out === 'json' ? `${printableJson({ tag: m.tag, data: m.data })}\n` : `${printable(m.tag)}\t${printableJson(m.data)}\n`);
      if (++seen >= count) {
        if (timer) clearTimeout(timer);
        resolve();
      }
    });
    conn.onClose((info) => reject(new BrineError('MASTER_UNREACHABLE', `the master closed the event stream (${info.reason})`)));
    conn.send(kinds.length > 0 ? { t: 'events', kinds: kinds as EventKind[] } : { t: 'events' });
  }).finally(() => conn.close('shutdown'));
  return 0;
}

export function registerEvents(program: Command): void {
  program
    .command('events')
    .description("stream the master's events: minion connects and disconnects with reasons, auth decisions, jobs")
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('-k, --kind <kinds...>', `only these kinds (${EVENT_KINDS.join(', ')})`)
    .option('-n, --count <n>', 'stop after n events')
    .option('--timeout <seconds>', 'stop after this many seconds')
    .option('--out <format>', 'text (default: tag, tab, JSON) or json (one object per line)')
    .action(exitWith((flags: EventsFlags) => stream(flags)));
}
