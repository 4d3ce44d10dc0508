// `brine event send TAG [DATA] [key=value ...]`: Salt's `salt-run event.send`, through the control
// socket: the master fires TAG with DATA (a JSON object) and the key=value pairs (each value read
// as JSON when it parses, else kept as text) on its bus, and the command prints True as salt-run does.

import type { Command } from 'commander';
import { controlSocketPath } from '../../master/control-socket-path.js';
import { type EventFired, isPlainObject } from '../../protocol/index.js';
import { BrineError } from '../../util/errors.js';
import { requestOnce } from '../control-client.js';
import { masterOptions, type ConfigFlags, exitWith } from '../common.js';

/** DATA and key=value words as one mapping; a DATA that is not a JSON object is a USAGE error. */
export function eventDataOf(words: readonly string[]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [i, w] of words.entries()) {
    const eq = /^([A-Za-z_][A-Za-z0-9_.-]*)=(.*)$/s.exec(w);
    if (eq) {
      let value: unknown = eq[2];
      try {
        value = JSON.parse(eq[2]!);
      } catch {
        // plain text, as Salt keeps a value YAML reads as a string
      }
      data[eq[1]!] = value;
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(w);
    } catch {
      parsed = undefined;
    }
    if (i !== 0 || !isPlainObject(parsed))
      throw new BrineError('USAGE', `event data must be a JSON object (e.g. '{"foo": "bar"}') followed by key=value pairs, got ${JSON.stringify(w.slice(0, 200))}`);
    Object.assign(data, parsed);
  }
  return data;
}

async function send(tag: string, words: string[], flags: ConfigFlags): Promise<number> {
  const opts = masterOptions(flags);
  if (tag.trim() === '' || tag.length > 512) throw new BrineError('USAGE', 'the tag must be 1 to 512 characters, e.g. myco/deploy/start');
  await requestOnce<EventFired>(controlSocketPath(opts), { t: 'fire_event', tag, data: eventDataOf(words) }, 'event_fired');
  process.stdout.write('True\n');
  return 0;
}

export function registerEvent(program: Command): void {
  const cmd = program.command('event').description("fire events on the master's bus (Salt's event runner)");
  cmd
    .command('send <tag> [data...]')
    .description("fire TAG with DATA (a JSON object) and key=value pairs on the master's bus (Salt's salt-run event.send)")
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .action(exitWith((tag: string, data: string[], flags: ConfigFlags) => send(tag, data, flags)));
}
