// inotify (Salt's salt/beacons/inotify.py) on Node's fs.watch, which is inotify on Linux: `files:`
// maps a path to {mask, recurse, auto_add, exclude}; each change is an event tagged with the
// watched path ({path, change}), fired as salt/beacon/<id>/inotify/<watched path>. fs.watch reports
// "change" and "rename" only: a change is IN_MODIFY (IN_CLOSE_WRITE when only that is asked for), a
// rename is IN_CREATE or IN_DELETE by whether the path exists afterwards.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { isPlainObject } from '../protocol/schema.js';
import { globToRegExp } from '../util/glob.js';
import type { BeaconContext, BeaconData, BeaconInstance, BeaconModule } from './types.js';

/** The masks fs.watch can tell apart; Salt's default is create, delete and modify. */
const OBSERVABLE = new Set(['create', 'delete', 'modify', 'close_write', 'moved_from', 'moved_to', 'attrib']);
const DEFAULT_MASK = ['create', 'delete', 'modify'];

interface WatchSpec {
  mask: Set<string>;
  recurse: boolean;
  exclude: unknown[];
}

function specOf(value: unknown): WatchSpec {
  const v = isPlainObject(value) ? value : {};
  const mask = Array.isArray(v.mask) ? v.mask.map((m) => String(m).toLowerCase()) : typeof v.mask === 'string' ? [v.mask.toLowerCase()] : DEFAULT_MASK;
  return { mask: new Set(mask), recurse: v.recurse === true || v.auto_add === true, exclude: Array.isArray(v.exclude) ? v.exclude : [] };
}

function excluded(pathname: string, excludes: unknown[]): boolean {
  for (const ex of excludes) {
    if (isPlainObject(ex)) {
      const [pattern] = Object.keys(ex);
      const opts = pattern === undefined ? undefined : ex[pattern];
      if (pattern !== undefined && isPlainObject(opts) && opts.regex === true) {
        try {
          if (new RegExp(pattern).test(pathname)) return true;
        } catch {
          // Salt logs an invalid regex and keeps the event
        }
        continue;
      }
      if (pattern !== undefined && pathname.startsWith(pattern)) return true;
    } else if (typeof ex === 'string') {
      if (ex.includes('*') ? globToRegExp(ex).test(pathname) : pathname.startsWith(ex)) return true;
    }
  }
  return false;
}

export const inotifyBeacon: BeaconModule = {
  name: 'inotify',
  closeDuringStateRun: true,
  validate(config) {
    if (!isPlainObject(config.files)) return 'Configuration for inotify beacon must include files.';
    for (const [p, v] of Object.entries(config.files)) {
      if (v !== null && v !== undefined && !isPlainObject(v)) return `Configuration for inotify beacon: ${p} must be a mapping of mask, recurse, auto_add and exclude (or empty).`;
      if (isPlainObject(v)) {
        for (const k of ['recurse', 'auto_add']) if (k in v && typeof v[k] !== 'boolean') return `Configuration for inotify beacon ${k} must be boolean.`;
        if ('exclude' in v && !Array.isArray(v.exclude)) return 'Configuration for inotify beacon exclude must be a list.';
        const unknown = [...specOf(v).mask].filter((m) => !OBSERVABLE.has(m));
        if (unknown.length > 0) return `Configuration for inotify beacon: mask ${unknown.join(', ')} cannot be observed by brine (fs.watch reports ${[...OBSERVABLE].join(', ')}).`;
      }
    }
    return undefined;
  },
  create: (ctx) => new InotifyWatches(ctx),
};

class InotifyWatches implements BeaconInstance {
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private queue: BeaconData[] = [];

  constructor(private readonly ctx: BeaconContext) {}

  poll(config: Readonly<Record<string, unknown>>): BeaconData[] {
    const files = isPlainObject(config.files) ? config.files : {};
    // drop watches no longer configured; add the new ones whose path exists (Salt retries each poll)
    for (const [p, w] of this.watchers) {
      if (!(p in files)) {
        w.close();
        this.watchers.delete(p);
      }
    }
    for (const [p, v] of Object.entries(files)) if (!this.watchers.has(p) && fs.existsSync(p)) this.watch(p, specOf(v));
    const out = this.queue;
    this.queue = [];
    return out;
  }

  close(): void {
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.queue = [];
  }

  private watch(watched: string, spec: WatchSpec): void {
    const isDir = fs.statSync(watched).isDirectory();
    try {
      const w = fs.watch(watched, { recursive: isDir && spec.recurse }, (kind, name) => {
        const pathname = isDir && name ? path.join(watched, name.toString()) : watched;
        const change = this.changeOf(kind, pathname, spec.mask);
        if (change === undefined || excluded(pathname, spec.exclude)) return;
        this.queue.push({ tag: watched, path: pathname, change });
      });
      w.on('error', (err) => {
        this.ctx.logger.warn({ path: watched, err: err.message }, `inotify beacon: the watch on ${watched} ended (${err.message}); it is set up again when the path exists`);
        w.close();
        this.watchers.delete(watched);
      });
      this.watchers.set(watched, w);
    } catch (err) {
      this.ctx.logger.warn({ path: watched, err: String(err) }, `inotify beacon: cannot watch ${watched}: ${String(err)}`);
    }
  }

  private changeOf(kind: string, pathname: string, mask: ReadonlySet<string>): string | undefined {
    if (kind === 'change') {
      if (mask.has('modify')) return 'IN_MODIFY';
      if (mask.has('close_write')) return 'IN_CLOSE_WRITE';
      return mask.has('attrib') ? 'IN_ATTRIB' : undefined;
    }
    const exists = fs.existsSync(pathname);
    const isDir = exists && fs.statSync(pathname).isDirectory();
    const suffix = isDir ? '|IN_ISDIR' : '';
    if (exists) return mask.has('create') || mask.has('moved_to') ? `IN_CREATE${suffix}` : undefined;
    return mask.has('delete') || mask.has('moved_from') ? 'IN_DELETE' : undefined;
  }
}
