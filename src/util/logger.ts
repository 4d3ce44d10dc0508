// Structured, leveled logs through pino. Daemons log JSON lines or a readable text form; Salt's
// level names are accepted (warning, critical, garbage, quiet ...).

import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';
import { escapeRawInJson, printable, printableJson } from './printable.js';
import type { SaltLogLevel } from './log-levels.js';

export type Logger = PinoLogger;

export { SALT_LOG_LEVELS, isSaltLogLevel, type SaltLogLevel } from './log-levels.js';

const TO_PINO: Record<SaltLogLevel, pino.LevelWithSilent> = {
  all: 'trace',
  garbage: 'trace',
  trace: 'trace',
  debug: 'debug',
  profile: 'debug',
  info: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'fatal',
  quiet: 'silent',
};

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARNING', 50: 'ERROR', 60: 'CRITICAL' };

export interface LoggerOptions {
  name: string;
  level: SaltLogLevel;
  /** `text` gives Salt-like lines (`[WARNING ] message key=value`), `json` one object per line. */
  format?: 'text' | 'json';
  /** Where lines go; defaults to stderr. */
  write?: (line: string) => void;
  /** More destinations with their own level, in the same format (the daemon's log_file). */
  sinks?: readonly LogSink[];
}

export interface LogSink {
  level: SaltLogLevel;
  write(line: string): void;
}

/** Redacted wherever they appear in a log object. */
const REDACT = ['*.password', '*.passwd', '*.secret', '*.token', '*.privateKey', '*.private_key', 'password', 'token', 'secret'];

export function createLogger(opts: LoggerOptions): Logger {
  const format = opts.format ?? 'text';
  // IDs, agents and messages from peers end up in log fields: neither format may let them start a
  // line of their own or carry terminal escapes (threats.md #32)
  // multistream hands the same line to each destination in turn: format it once
  let lastIn = '';
  let lastOut = '';
  const render = (line: string): string => {
    if (line !== lastIn) {
      lastIn = line;
      lastOut = format === 'json' ? escapeRawInJson(line) : toText(line);
    }
    return lastOut;
  };
  const sinks: LogSink[] = [{ level: opts.level, write: opts.write ?? ((line: string) => process.stderr.write(line)) }, ...(opts.sinks ?? [])];
  const options = { name: opts.name, redact: { paths: REDACT, censor: '[redacted]' }, base: { name: opts.name } };
  const live = sinks.filter((s) => TO_PINO[s.level] !== 'silent');
  if (live.length <= 1) {
    const only = live[0];
    const stream: DestinationStream = { write: (line: string) => only?.write(render(line)) };
    return pino({ ...options, level: only ? TO_PINO[only.level] : 'silent' }, stream);
  }
  // each destination keeps its own threshold; the logger itself passes the lowest of them
  const streams = live.map((s) => ({ level: TO_PINO[s.level] as pino.Level, stream: { write: (line: string) => s.write(render(line)) } }));
  const lowest = streams.reduce((a, b) => (pino.levels.values[a.level]! <= pino.levels.values[b.level]! ? a : b)).level;
  return pino({ ...options, level: lowest }, pino.multistream(streams));
}

/** A logger that drops everything (for tests and library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

function toText(line: string): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return `${printable(line.replace(/\n$/, ''))}\n`;
  }
  const { level, time, msg, name, pid: _pid, hostname: _host, ...rest } = rec;
  const lvl = (LEVEL_NAMES[Number(level)] ?? String(level)).padEnd(8);
  const ts = new Date(Number(time)).toISOString().replace('T', ' ').replace('Z', '');
  const extra = Object.entries(rest)
    .map(([k, v]) => `${printable(k)}=${typeof v === 'string' ? printable(v) : printableJson(v)}`)
    .join(' ');
  return `${ts} [${printable(String(name))}][${lvl}] ${printable(String(msg ?? ''))}${extra ? ` ${extra}` : ''}\n`;
}

/** Writes a line logged at one of the levels Salt's log module has (log.*, salt.log.* in templates). */
export function logAtSaltLevel(logger: Logger, level: 'debug' | 'info' | 'warning' | 'error' | 'critical', message: string): void {
  const pinoLevel = TO_PINO[level];
  if (pinoLevel !== 'silent') logger[pinoLevel](message);
}
