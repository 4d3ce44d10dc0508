// Salt's `syslog` returner (salt/returners/syslog_return.py): the return as one JSON line at
// `syslog.facility`|`syslog.level` (LOG_USER|LOG_INFO), ident `syslog.tag` (at most 32 characters;
// default the daemon's program name), `syslog.options` (LOG_PID adds the daemon's pid). Written by
// util-linux's `logger` (Node has no syslog(3)) to `syslog.socket` (brine's: /dev/log by default).

import { spawn } from 'node:child_process';
import { BrineError, errorMessage } from '../util/errors.js';
import type { Returner, ReturnerContext, SaltReturn } from './returner.js';
import { returnerOptions } from './returner-options.js';

const FACILITIES = ['KERN', 'USER', 'MAIL', 'DAEMON', 'AUTH', 'SYSLOG', 'LPR', 'NEWS', 'UUCP', 'CRON', 'AUTHPRIV', 'FTP', ...[0, 1, 2, 3, 4, 5, 6, 7].map((n) => `LOCAL${n}`)];
const LEVELS = ['EMERG', 'ALERT', 'CRIT', 'ERR', 'WARNING', 'NOTICE', 'INFO', 'DEBUG'];
const OPTIONS = ['LOG_PID', 'LOG_CONS', 'LOG_NDELAY', 'LOG_ODELAY', 'LOG_NOWAIT', 'LOG_PERROR'];
/** logger splits longer messages; a return is one line, however long (up to what the socket takes). */
const MAX_LINE = 1024 * 1024;

/** `LOG_USER` -> `user`; undefined for a name syslog does not have. */
function syslogName(value: unknown, names: readonly string[]): string | undefined {
  const s = String(value);
  return s.startsWith('LOG_') && names.includes(s.slice(4)) ? s.slice(4).toLowerCase() : undefined;
}

export interface SyslogLine {
  priority: string;
  tag: string;
  pid: boolean;
  socket: string;
}

/** The logger invocation a return's options ask for, or a RETURNER_FAILED naming the bad option (Salt logs it and stores nothing). */
export function syslogLine(ctx: ReturnerContext, ret?: SaltReturn): SyslogLine {
  const o = returnerOptions(ctx.opts, 'syslog', ['level', 'facility', 'tag', 'options', 'socket'], { level: 'LOG_INFO', facility: 'LOG_USER', options: [], socket: '/dev/log' }, ret);
  const level = syslogName(o.level, LEVELS);
  const facility = syslogName(o.facility, FACILITIES);
  const bad = (what: string) => new BrineError('RETURNER_FAILED', `the syslog returner stored nothing: ${what}`);
  if (level === undefined) throw bad(`syslog.level ${JSON.stringify(o.level)} is not a syslog level (LOG_EMERG ... LOG_DEBUG)`);
  if (facility === undefined) throw bad(`syslog.facility ${JSON.stringify(o.facility)} is not a syslog facility (LOG_USER, LOG_LOCAL0 ...)`);
  const options = Array.isArray(o.options) ? o.options.map(String) : [String(o.options)];
  const unknown = options.find((x) => !OPTIONS.includes(x));
  if (unknown !== undefined) throw bad(`syslog.options has ${JSON.stringify(unknown)}, not one of ${OPTIONS.join(', ')}`);
  const tag = o.tag === undefined ? ctx.program : o.tag;
  if (typeof tag !== 'string') throw bad('syslog.tag must be a string');
  if (tag.length > 32) throw bad('syslog.tag is limited to 32 characters');
  return { priority: `${facility}.${level}`, tag, pid: options.includes('LOG_PID'), socket: String(o.socket) };
}

export class SyslogReturner implements Returner {
  readonly name = 'syslog';

  constructor(private readonly ctx: ReturnerContext) {}

  async returner(ret: SaltReturn): Promise<void> {
    const line = syslogLine(this.ctx, ret);
    const argv = ['--socket', line.socket, '--socket-errors=on', '--size', String(MAX_LINE), '-t', line.tag, '-p', line.priority];
    if (line.pid) argv.push(`--id=${process.pid}`);
    await runLogger(argv, JSON.stringify(ret), ret.jid);
  }
}

function runLogger(argv: string[], message: string, jid: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (why: string, cause?: unknown) =>
      reject(new BrineError('RETURNER_FAILED', `the syslog returner could not log the return of job ${jid}: ${why}`, cause === undefined ? {} : { cause }));
    const child = spawn('logger', argv, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-2000);
    });
    child.on('error', (err) => fail(`cannot run logger (Debian: bsdutils): ${errorMessage(err)}`, err));
    child.on('close', (code) => (code === 0 ? resolve() : fail(`logger exited ${code}: ${stderr.trim() || 'no message'}`)));
    // the message on stdin: no argv length limit, and never parsed as an option
    child.stdin.on('error', () => {});
    child.stdin.end(`${message}\n`);
  });
}
