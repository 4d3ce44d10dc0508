// `brine events [TAGMATCH]`: the master's event bus as Salt's `state.event` prints it: one line
// per event, the tag, a tab and the data as Python's json.dumps writes it (`--pretty`: keys sorted
// and indented by 4), for the tags TAGMATCH matches (Salt's expr_match: a glob, or a regular
// expression over the whole tag), until interrupted, --count events, or --timeout seconds.

import type { Command } from 'commander';
import { controlSocketPath } from '../../master/control-socket-path.js';
import { compileExpr } from '../../pki/index.js';
import { EVENT_KINDS, type EventKind } from '../../protocol/index.js';
import { BrineError, isErrorCode } from '../../util/errors.js';
import { printable, printableJson } from '../../util/printable.js';
import { openControl } from '../control-client.js';
import { masterOptions, type ConfigFlags, exitWith } from '../common.js';
import { pyJsonDumps } from '../output/py-json.js';

interface EventsFlags extends ConfigFlags {
  kind?: string[];
  count?: string;
  timeout?: string;
  out?: string;
  pretty?: boolean;
}

/** Python's sort_keys: every mapping's keys in code-point order, at every depth. */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = sortKeysDeep((value as Record<string, unknown>)[k]);
  return out;
}

/**
 * One event as Salt's state.event prints it. ensure_ascii escapes every control and non-ASCII
 * character in the data, and the tag goes through printable (threats.md #32): a minion's text
 * cannot move the cursor or forge a line, and the JSON stays valid.
 */
export function formatEvent(tag: string, data: unknown, pretty: boolean): string {
  return `${printable(tag)}\t${pretty ? pyJsonDumps(sortKeysDeep(data), 4) : pyJsonDumps(data)}\n`;
}

function numberFlag(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new BrineError('USAGE', `${name} takes a number of at least 0, not '${value}'`);
  return n;
}

async function stream(flags: EventsFlags, tagmatch: string): Promise<number> {
  const opts = masterOptions(flags);
  const kinds = (flags.kind ?? []).flatMap((k) => k.split(','));
  for (const k of kinds) if (!(EVENT_KINDS as readonly string[]).includes(k)) throw new BrineError('USAGE', `unknown event kind '${k}': use ${EVENT_KINDS.join(', ')}`);
  if (flags.out !== undefined && flags.out !== 'json' && flags.out !== 'text') throw new BrineError('USAGE', `unknown --out '${flags.out}': use text (tag, tab, JSON, as Salt's state.event) or json`);
  // Salt's count=-1 (and 0 here) means forever
  const n = numberFlag(flags.count, '--count', 0);
  const count = n <= 0 ? Infinity : n;
  const timeout = numberFlag(flags.timeout, '--timeout', 0);
  const matches = tagmatch === '*' ? () => true : compileExpr(tagmatch);
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
      if (m.t !== 'event' || seen >= count || !matches(m.tag)) return;
      process.stdout.write(flags.out === 'json' ? `${printableJson({ tag: m.tag, data: m.data })}\n` : formatEvent(m.tag, m.data, flags.pretty === true));
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
    .description("follow the master's event bus as Salt's state.event prints it (tag, tab, JSON); see docs/events.md")
    .argument('[tagmatch]', "only tags this glob or regular expression matches (Salt's tagmatch), e.g. 'salt/job/*/ret/*'", '*')
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('-k, --kind <kinds...>', `only events of these kinds (${EVENT_KINDS.join(', ')})`)
    .option('-n, --count <n>', 'stop after n matching events (Salt: count)')
    .option('--pretty', "keys sorted and indented by 4, as Salt's pretty=True")
    .option('--timeout <seconds>', 'stop after this many seconds')
    .option('--out <format>', 'text (default: tag, tab, JSON) or json (one {tag, data} object per line)')
    .action(exitWith((tagmatch: string, flags: EventsFlags) => stream(flags, tagmatch)));
}
