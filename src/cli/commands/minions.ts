// `brine minions status|up|down` (Salt's manage.status/up/down), answered from the master's
// session table at once: no broadcast, no waiting for minions to answer a ping.

import type { Command } from 'commander';
import { controlSocketPath } from '../../master/control-socket-path.js';
import type { SessionInfo, SessionsReply } from '../../protocol/index.js';
import { BrineError } from '../../util/errors.js';
import { printable, printableJson } from '../../util/printable.js';
import { pyJsonDumps } from '../output/py-json.js';
import { requestOnce } from '../control-client.js';
import { masterOptions, type ConfigFlags, exitWith } from '../common.js';

interface MinionsFlags extends ConfigFlags {
  out?: string;
}

function ago(ms: number | undefined, now: number): string {
  if (ms === undefined) return '-';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 120) return `${s}s ago`;
  if (s < 7200) return `${Math.round(s / 60)}m ago`;
  return `${Math.round(s / 3600)}h ago`;
}

/** `3 (up ~240s, silent ~30s)`: the typical time up before each drop identifies a middlebox. */
function dropsCell(s: SessionInfo): string {
  if (!s.drops) return '0';
  const secs = (ms: number | undefined) => (ms === undefined ? '?' : `${Math.round(ms / 1000)}s`);
  return `${s.drops} (up ~${secs(s.typicalConnectedMs)}, silent ~${secs(s.typicalSilentMs)})`;
}

export function renderStatusTable(sessions: SessionInfo[], now: number): string {
  const header = ['ID', 'STATE', 'SINCE', 'LAST SEEN', 'REMOTE', 'AGENT', 'PROTO', 'RTT', 'RECONNECTS/1H', 'DROPS/1H', 'DROPPED MSGS', 'LAST DISCONNECT'];
  const rows = sessions.map((s) =>
    [
      s.id,
      s.flapping ? `${s.state} FLAPPING` : s.state,
      s.state === 'connected' ? ago(s.connectedSince, now) : '-',
      ago(s.lastSeen, now),
      s.remote ?? '-',
      s.agent ?? '-',
      s.protocol === undefined ? '-' : String(s.protocol),
      s.rttMs === undefined ? '-' : `${s.rttMs.toFixed(1)}ms`,
      String(s.reconnects),
      dropsCell(s),
      String(s.droppedMessages ?? 0),
      s.lastDisconnectReason ? `${s.lastDisconnectReason} (${ago(s.lastDisconnectAt, now)})` : '-',
    ].map(printable),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

async function minions(which: 'status' | 'up' | 'down', flags: MinionsFlags): Promise<number> {
  const opts = masterOptions(flags);
  const reply = await requestOnce<SessionsReply>(controlSocketPath(opts), { t: 'sessions' }, 'sessions');
  const up = reply.sessions.filter((s) => s.state === 'connected').map((s) => s.id);
  // Salt's manage.down: accepted minions that are not connected; a rejected or denied key is not down, it is out
  const down = reply.sessions.filter((s) => s.state === 'disconnected' || s.state === 'never_connected').map((s) => s.id);
  const out = flags.out;
  const known = which === 'status' ? ['table', 'json', 'yaml', 'sessions'] : ['list', 'json', 'yaml'];
  if (out !== undefined && !known.includes(out)) throw new BrineError('USAGE', `unknown --out '${out}': use ${known.join(', ')}`);
  if (which === 'status') {
    // json and yaml: Salt's manage.status document, so salt-run scripts read it unchanged
    if (out === 'json') process.stdout.write(`${pyJsonDumps({ down, up }, 4)}\n`);
    else if (out === 'sessions') process.stdout.write(`${printableJson(reply.sessions, 4)}\n`);
    else if (out === 'yaml') process.stdout.write(`down:\n${down.map((id) => `    - ${printable(id)}\n`).join('')}up:\n${up.map((id) => `    - ${printable(id)}\n`).join('')}`);
    else process.stdout.write(renderStatusTable(reply.sessions, Date.now()));
    return 0;
  }
  const ids = which === 'up' ? up : down;
  if (out === 'json') process.stdout.write(`${printableJson(ids)}\n`);
  else if (out === 'yaml') process.stdout.write(ids.length === 0 ? '[]\n' : ids.map((id) => `- ${printable(id)}\n`).join(''));
  else process.stdout.write(ids.map((id) => `- ${printable(id)}\n`).join(''));
  return 0;
}

export function registerMinions(program: Command): void {
  const cmd = program.command('minions').description("who is connected, from the master's session table (Salt's manage.status/up/down)");
  for (const which of ['status', 'up', 'down'] as const) {
    cmd
      .command(which)
      .description(
        which === 'status'
          ? 'every accepted minion: state, since, last seen, address, agent, RTT, reconnects, drops and last disconnect reason in the last hour (kept across master restarts)'
          : `list the minions that are ${which}`,
      )
      .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
      .option(
        '--out <format>',
        which === 'status'
          ? 'table (default); json or yaml: Salt\'s manage.status document ({"down": [...], "up": [...]}); sessions: every column above as JSON rows'
          : "list (default), json or yaml (Salt's manage.up/down list)",
      )
      .action(exitWith((flags: MinionsFlags) => minions(which, flags)));
  }
}
