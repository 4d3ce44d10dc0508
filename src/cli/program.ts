// The `brine` command: subcommands for the daemons, keys, jobs and configuration. Only the
// module of the subcommand being run is loaded, so a minion does not carry the master's code.
// Started by main.js, the entry point (from the bundle of this module when there is one).

// first: the minion's V8 flags must be set before the other modules run
import './minion-heap.js';
import type { Command } from 'commander';
import { commandName, normalizeArgs } from './salt-spellings.js';

type Register = (program: Command) => void;

const COMMANDS: ReadonlyArray<readonly [readonly string[], () => Promise<Register>]> = [
  [['master', 'minion'], async () => (await import('./commands/daemons.js')).registerDaemons],
  [['key'], async () => (await import('./commands/key.js')).registerKey],
  [['run'], async () => (await import('./commands/run.js')).registerRun],
  [['call'], async () => (await import('./commands/call.js')).registerCall],
  [['config'], async () => (await import('./commands/config.js')).registerConfig],
  [['minions'], async () => (await import('./commands/minions.js')).registerMinions],
  [['events'], async () => (await import('./commands/events.js')).registerEvents],
  [['event'], async () => (await import('./commands/event.js')).registerEvent],
  [['jobs'], async () => (await import('./commands/jobs.js')).registerJobs],
  [['emulate'], async () => (await import('./commands/emulate.js')).registerEmulate],
  [['doctor'], async () => (await import('./commands/doctor.js')).registerDoctor],
  [['api'], async () => (await import('./commands/api.js')).registerApi],
  [['nats'], async () => (await import('./commands/nats.js')).registerNats],
  [['fileserver'], async () => (await import('./commands/fileserver.js')).registerFileserver],
  [['git-pillar'], async () => (await import('./commands/git-pillar.js')).registerGitPillar],
  [['runner'], async () => (await import('./commands/runner.js')).registerRunner],
];

/** The program with every subcommand, or only `only` when it names one (faster start). */
export async function buildProgram(only?: string): Promise<Command> {
  const [{ Command }, { BRINE_VERSION }] = await Promise.all([import('commander'), import('../modules/version.js')]);
  const program = new Command('brine').description('remote execution and fleet management in the SaltStack mould').version(BRINE_VERSION).showHelpAfterError().exitOverride();
  const known = only !== undefined && COMMANDS.some(([names]) => names.includes(only));
  for (const [names, load] of COMMANDS) {
    if (!known || names.includes(only)) (await load())(program);
  }
  return program;
}

/**
 * `brine run ... | head`: once the reader has gone, further output has nowhere to go. Stop
 * quietly, as a Unix filter does on SIGPIPE (Node ignores the signal and throws EPIPE instead,
 * which would print a stack trace). The daemons keep running: their output is logs.
 */
function exitWhenStdoutCloses(command: string | undefined): void {
  if (command === 'master' || command === 'minion' || command === 'api') return;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    // 128 + SIGPIPE, what a shell reports for a filter that stopped this way
    process.exit(141);
  });
}

/**
 * The flags of a plain \`brine minion [-c DIR] [-l LEVEL]\` (how a unit file starts it), read
 * without commander: the long-lived minion then never loads commander, nor the child_process and
 * dgram built-ins it requires (issue 27, thinmin). Anything else (other spellings, --show-id,
 * help, a repeated or unknown flag, a value that looks like a flag) returns undefined and goes
 * through commander as before, with its messages.
 */
export function plainMinionFlags(args: readonly string[]): { configDir?: string; logLevel?: string } | undefined {
  if (args[0] !== 'minion') return undefined;
  const names: Record<string, 'configDir' | 'logLevel'> = { '-c': 'configDir', '--config-dir': 'configDir', '-l': 'logLevel', '--log-level': 'logLevel' };
  const flags: { configDir?: string; logLevel?: string } = {};
  for (let i = 1; i < args.length; i += 2) {
    const key = names[args[i]!];
    const value = args[i + 1];
    if (key === undefined || flags[key] !== undefined || value === undefined || value === '' || value.startsWith('-')) return undefined;
    flags[key] = value;
  }
  return flags;
}

async function main(argv: string[]): Promise<void> {
  exitWhenStdoutCloses(commandName(argv.slice(2)));
  const minionFlags = plainMinionFlags(argv.slice(2));
  if (minionFlags !== undefined) {
    // what the commander action of \`brine minion\` does (commands/daemons.ts)
    const [{ runMinionDaemon }, { fail }] = await Promise.all([import('./commands/daemons.js'), import('./common.js')]);
    await runMinionDaemon(minionFlags).catch(fail);
    return;
  }
  const { CommanderError } = await import('commander');
  try {
    const program = await buildProgram(commandName(argv.slice(2)));
    await program.parseAsync([...argv.slice(0, 2), ...normalizeArgs(argv.slice(2), program)]);
  } catch (err) {
    if (err instanceof CommanderError) {
      // help and version end with code 0; usage errors use EX_USAGE like Salt's parsers
      process.exit(err.exitCode === 0 ? 0 : 64);
    }
    // loaded only when needed: common.js brings the config loader and YAML, which a command
    // that starts work early (brine call starts its worker thread first) loads later itself
    (await import('./common.js')).fail(err);
  }
}

void main(process.argv);
