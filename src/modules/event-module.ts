// The `event` module (Salt's salt/modules/event.py): send and fire_master fire on the master's bus
// (the master wraps the data as Salt's master does and names the minion itself); fire fires on
// the minion's own bus. They run inline in the minion daemon, which holds the session; a job's
// worker (a state's module.run, salt['event.send'] in a template) reaches them through its host.

import { BrineError } from '../util/errors.js';
import { isPlainObject } from '../protocol/schema.js';
import { defineFunction } from './define-function.js';
import type { ExecContext, MinionEventAccess, ModuleFunction } from './types.js';

function eventsOf(ctx: ExecContext, fun: string): MinionEventAccess {
  if (!ctx.events) {
    throw new BrineError('EVENT_UNAVAILABLE', `${fun} needs the minion daemon's session to the master; run it with brine run, or brine call without --local (both run it in the daemon)`);
  }
  return ctx.events;
}

/** Salt's with_grains/with_pillar/with_env: true for all, or a list of the keys to include. */
function subset(spec: unknown, all: Readonly<Record<string, unknown>>, what: string): Record<string, unknown> {
  if (spec === true) return { ...all };
  if (Array.isArray(spec) && spec.every((k) => typeof k === 'string')) return Object.fromEntries(spec.filter((k) => Object.hasOwn(all, k)).map((k) => [k, all[k]]));
  throw new BrineError('BAD_ARGUMENTS', `${what} must be True or a list of key names, got ${JSON.stringify(spec)}`);
}

const wanted = (v: unknown): boolean => v !== undefined && v !== null && v !== false;

/** Salt's event.send test: where the event goes when the minion has no master (unless use_master_when_local). */
function masterless(config: Readonly<Record<string, unknown>>): boolean {
  return (config.file_client === 'local' || config.master_type === 'disable' || config.local === true) && config.use_master_when_local !== true;
}

/** Event data must be a mapping, as in Salt (a string is parsed as YAML by the CLI before it gets here). */
function dataOf(value: unknown, fun: string): Record<string, unknown> {
  if (value === undefined || value === null || value === '') return {};
  if (isPlainObject(value)) return { ...value };
  throw new BrineError('BAD_ARGUMENTS', `${fun}: data must be a mapping (e.g. '{"foo": "bar"}' or foo=bar), got ${JSON.stringify(value)}`);
}

function tagOf(value: string, fun: string): string {
  if (value.trim() === '') throw new BrineError('BAD_ARGUMENTS', `${fun}: the tag is empty; give one like myco/build/done`);
  return value;
}

export const eventFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'event.send',
    doc: "Send an event to the master's bus (a masterless minion's own bus, as Salt) under `tag`, with `data` and, on request, this minion's grains, pillar, environment or saltenv/pillarenv; extra key=value arguments join the data.",
    params: [
      { name: 'tag', type: 'string', required: true, doc: 'the tag, e.g. myco/build/buildserver1/start' },
      { name: 'data', type: 'any', doc: 'a mapping; its keys win over the with_* values and key=value arguments' },
      { name: 'preload', type: 'any', doc: 'accepted for Salt compatibility; brine takes the load fields from the session' },
      { name: 'with_env', type: 'any', default: false, doc: 'True, or a list of variable names: the environment as `environ`' },
      { name: 'with_grains', type: 'any', default: false, doc: 'True, or a list of grain names: as `grains`' },
      { name: 'with_pillar', type: 'any', default: false, doc: 'True, or a list of pillar keys: as `pillar` (pillar is often secret: name the keys)' },
      { name: 'with_env_opts', type: 'bool', default: false, doc: "the minion's saltenv and pillarenv" },
    ],
    kwargs: true,
    inline: true,
    run: async (ctx, a) => {
      const out: Record<string, unknown> = {};
      const { with_env, with_grains, with_pillar, with_env_opts } = a.named;
      if (wanted(with_env)) out.environ = subset(with_env, process.env as Record<string, unknown>, 'with_env');
      if (wanted(with_grains)) out.grains = subset(with_grains, ctx.grains(), 'with_grains');
      if (wanted(with_pillar)) out.pillar = subset(with_pillar, ctx.pillar?.() ?? {}, 'with_pillar');
      if (with_env_opts) {
        out.saltenv = typeof ctx.config.saltenv === 'string' ? ctx.config.saltenv : 'base';
        out.pillarenv = typeof ctx.config.pillarenv === 'string' ? ctx.config.pillarenv : null;
      }
      Object.assign(out, a.extra, dataOf(a.named.data, 'event.send'));
      const tag = tagOf(a.named.tag, 'event.send');
      // Salt's send: a masterless minion (file_client local, master_type disable) fires on its own bus
      if (masterless(ctx.config)) return eventsOf(ctx, 'event.send').fireLocal(tag, out);
      await eventsOf(ctx, 'event.send').fireMaster(tag, out);
      return true;
    },
  }),
  defineFunction({
    name: 'event.fire_master',
    doc: "Fire an event with `data` under `tag` on the master's bus.",
    params: [
      { name: 'data', type: 'any', required: true, doc: 'a mapping' },
      { name: 'tag', type: 'string', required: true, doc: 'the tag' },
      { name: 'preload', type: 'any', doc: 'accepted for Salt compatibility; brine takes the load fields from the session' },
    ],
    inline: true,
    run: async (ctx, a) => {
      await eventsOf(ctx, 'event.fire_master').fireMaster(tagOf(a.named.tag, 'event.fire_master'), dataOf(a.named.data, 'event.fire_master'));
      return true;
    },
  }),
  defineFunction({
    name: 'event.fire',
    doc: "Fire an event with `data` under `tag` on the minion's own bus (its beacons and local listeners; nothing reaches the master).",
    params: [
      { name: 'data', type: 'any', required: true, doc: 'a mapping' },
      { name: 'tag', type: 'string', required: true, doc: 'the tag' },
    ],
    inline: true,
    run: async (ctx, a) => eventsOf(ctx, 'event.fire').fireLocal(tagOf(a.named.tag, 'event.fire'), dataOf(a.named.data, 'event.fire')),
  }),
];
