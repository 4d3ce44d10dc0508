// Error codes of one area (the reactor, docs/reactor.md); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const REACTOR_ERRORS = {
  REACTOR_SLS_MISSING: spec(
    'A reactor SLS file named in the `reactor:` option does not exist (an absolute path, or a salt:// path not found in file_roots). The event gets no reaction from that file; the other files and events go on.',
    'Fix the path in the `reactor:` option (an absolute path, or salt://<path> under file_roots), or create the file; `brine events` shows the tags that reach the reactor.',
    1,
  ),
  REACTION_INVALID: spec(
    "A reactor SLS rendered to data that is not a reaction: an ID whose function is not `local.`, `runner.`, `wheel.` or `caller.` followed by a module.function, a local reaction without `tgt`, `args:` that is not a list of one-key mappings, or an unknown field. That reaction does not run; the file's other reactions do.",
    'Fix the reaction the message names (docs/reactor.md shows each format); the event that triggered it can be fired again with `brine event send` once the runners are available, or by repeating what fired it.',
    1,
  ),
  REACTION_UNSUPPORTED: spec(
    "A reaction uses a client the daemon running the reactor does not have: `caller.` on the master (it runs the function on the reactor's own host, which is for a minion's reactor), or `local.`, `runner.` or `wheel.` in a minion's reactor (they run on a master's reactor).",
    "On the master use `local.<fun>` with `tgt` set to the minion; in a minion's reactor use `caller.<fun>`, or `event.send` a tag the master's reactor maps. docs/reactor.md lists each daemon's clients.",
    1,
  ),
  REACTOR_LOOP: spec(
    'A reactor SLS reacted to an event its own reactions caused (a job it published returned, an event a runner it called fired) more often than the loop limit, or to the same tag more than 10 times in a second: the reaction was dropped so that the master is not flooded.',
    'Narrow the tag glob of that reactor in the `reactor:` option, or make the reaction skip the events it causes (compare `data` in a Jinja `{% if %}`); the warning names the SLS and the tag.',
    1,
  ),
  REACTOR_BUSY: spec(
    'More reactions were waiting than `reactor_worker_hwm` allows: this event got no reaction (dropped and counted).',
    'Raise `reactor_worker_hwm` or `reactor_worker_threads`, or narrow the tag globs of the `reactor:` option to the events that need a reaction.',
    1,
  ),
} as const satisfies Record<string, ErrorSpec>;
