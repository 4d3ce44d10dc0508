// Structured, leveled logs through pino. Daemons log JSON lines or a readable text form; Salt's
// level names are accepted (warning, critical, garbage, quiet ...).

import { pino, type Logger as PinoLogger, type DestinationStream } from 'pino';
import { escapeRawInJson, printable, printableJson } from './printable.js';

export type Logger = PinoLogger;

export const SALT_LOG_LEVELS = ['all', 'garbage', 'trace', 'debug', 'profile', 'info', 'warning', 'error', 'critical', 'quiet'] as const;
export type SaltLogLevel = (typeof SALT_LOG_LEVELS)[number];

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

export function isSaltLogLevel(level: string): level is SaltLogLevel {
  return (SALT_LOG_LEVELS as readonly string[]).includes(level);
}

export interface LoggerOptions {
  name: string;
  level: SaltLogLevel;
  /** `text` gives Salt-like lines (`[WARNING ] message key=value`), `json` one object per line. */
  format?: 'text' | 'json';
  /** Where lines go; defaults to stderr. */
  write?: (line: string) => void;
}

/** Redacted wherever they appear in a log object. */
const REDACT = ['*.password', '*.passwd', '*.secret', '*.token', '*.privateKey', '*.private_key', 'password', 'token', 'secret'];

export function createLogger(opts: LoggerOptions): Logger {
  const write = opts.write ?? ((line: string) => process.stderr.write(line));
  const format = opts.format ?? 'text';
  const stream: DestinationStream = {
    write(line: string) {
      // IDs, agents and messages from peers end up in log fields: neither format may let them
      // start a line of their own or carry terminal escapes (threats.md #32)
      write(format === 'json' ? escapeRawInJson(line) : toText(line));
    },
  };
  return pino({ name: opts.name, level: TO_PINO[opts.level], redact: { paths: REDACT, censor: '[redacted]' }, base: { name: opts.name } }, stream);
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
