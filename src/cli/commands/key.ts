// `brine key`: salt-key's flags, prompts and output over the master's key store (pki_dir).
// Works whether or not the master is running: the master reads the store at each sign-in.

import * as readline from 'node:readline';
import type { Command } from 'commander';
import { KeyStore, captureKey, chooseDenied, deniedLine, matchesGlobs, selectKeys, settleKey, type ChosenKey, type KeyState } from '../../pki/index.js';
import { loadOrCreateIdentity } from '../../pki/index.js';
import { BrineError } from '../../util/errors.js';
import { printable } from '../../util/printable.js';
import { masterOptions, type ConfigFlags, exitWith } from '../common.js';
import { requestOnce } from '../control-client.js';
import { formatKeyDocument, keyOutputter, listDocument, perKeyDocument } from '../key-documents.js';
import { outIndent } from '../out-indent.js';
import { controlSocketPath } from '../../master/control-socket-path.js';
import type { KeyChange, KeysReconciled } from '../../protocol/index.js';

interface KeyFlags extends ConfigFlags {
  listAll?: boolean;
  list?: string;
  accept?: string;
  acceptAll?: boolean;
  reject?: string;
  rejectAll?: boolean;
  delete?: string;
  deleteAll?: boolean;
  finger?: string;
  fingerAll?: boolean;
  print?: string;
  printAll?: boolean;
  yes?: boolean;
  includeRejected?: boolean;
  includeAccepted?: boolean;
  includeDenied?: boolean;
  includeAll?: boolean;
  replace?: string;
  out?: string;
  outIndent?: string;
}

/** Salt prints sections in sorted directory-name order. */
const SECTIONS: ReadonlyArray<[KeyState, string]> = [
  ['accepted', 'Accepted Keys:'],
  ['denied', 'Denied Keys:'],
  ['pending', 'Unaccepted Keys:'],
  ['rejected', 'Rejected Keys:'],
];

const LIST_ARGS: ReadonlyArray<[string, KeyState[]]> = [
  ['acc', ['accepted']],
  ['pre', ['pending']],
  ['un', ['pending']],
  ['rej', ['rejected']],
  ['den', ['denied']],
  ['all', ['accepted', 'denied', 'pending', 'rejected']],
];

const matches = matchesGlobs;
const select = selectKeys;

/** `line` gets the stored ID and prints it through printable(): IDs come from peers. */
function listing(selection: Map<KeyState, string[]>, line: (state: KeyState, id: string) => string | string[] = (_s, id) => printable(id)): string {
  const out: string[] = [];
  for (const [state, title] of SECTIONS) {
    const ids = selection.get(state);
    if (!ids) continue;
    out.push(title, ...ids.flatMap((id) => line(state, id)));
  }
  return out.join('\n');
}

function deniedLines(store: KeyStore, id: string): string[] {
  return store.deniedKeys(id).map((k) => deniedLine(id, k));
}

type Chosen = ChosenKey;
const capture = captureKey;
const settle = settleKey;

async function confirm(question: string, defaultYes: boolean, yes: boolean | undefined): Promise<boolean> {
  if (yes) return true;
  process.stdout.write(question);
  const rl = readline.createInterface({ input: process.stdin });
  const answer = await new Promise<string | undefined>((resolve) => {
    rl.once('line', (l) => resolve(l));
    rl.once('close', () => resolve(undefined));
  });
  rl.close();
  if (answer === undefined) {
    process.stdout.write('\nno answer on standard input; nothing was changed (use -y to skip the question)\n');
    return false;
  }
  const a = answer.trim().toLowerCase();
  if (a === '') return defaultYes;
  return a.startsWith('y');
}

function describeSources(states: KeyState[]): string {
  const names = states.map((s) => (s === 'pending' ? 'unaccepted' : s));
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

async function move(store: KeyStore, flags: KeyFlags, globs: string, to: 'accepted' | 'rejected', changes: KeyChange[]): Promise<number> {
  const from: KeyState[] = ['pending'];
  if (to === 'accepted' && (flags.includeRejected || flags.includeAll)) from.push('rejected');
  if (to === 'rejected' && (flags.includeAccepted || flags.includeAll)) from.push('accepted');
  if (flags.includeDenied || flags.includeAll) from.push('denied');
  const selection = select(store, from, globs);
  if (selection.size === 0) {
    process.stdout.write(`The key glob '${globs}' does not match any ${describeSources(from)} keys.\n`);
    return 1;
  }
  // captured before the question: what is shown is what gets moved (threats.md #31)
  const chosen = new Map<string, Chosen>();
  for (const [state, ids] of selection) {
    for (const id of ids) {
      const c = capture(store, state, id, flags.finger);
      if (c) chosen.set(`${state}/${id}`, c);
    }
  }
  const verb = to === 'accepted' ? 'accepted' : 'rejected';
  const shown = listing(selection, (state, id) => {
    const c = chosen.get(`${state}/${id}`);
    return c?.denied ? deniedLine(id, c.denied) : printable(id);
  });
  process.stdout.write(`The following keys are going to be ${verb}:\n${shown}\n`);
  if (!(await confirm('Proceed? [n/Y] ', true, flags.yes))) return 1;
  let code = 0;
  for (const c of chosen.values()) {
    if (to === 'accepted' && c.state !== 'accepted' && store.read('accepted', c.id) !== undefined) {
      process.stderr.write(`Key for minion ${printable(c.id)} was not accepted: another key is already accepted for this ID. Delete it first with 'brine key -d ${printable(c.id)}'.\n`);
      code = 1;
      continue;
    }
    settle(store, c, to);
    changes.push({ id: c.id, act: to === 'accepted' ? 'accept' : 'reject' });
    process.stdout.write(`Key for minion ${printable(c.id)} ${verb}.\n`);
  }
  return code;
}

async function remove(store: KeyStore, flags: KeyFlags, globs: string, changes: KeyChange[]): Promise<number> {
  const selection = select(store, ['accepted', 'denied', 'pending', 'rejected'], globs);
  if (selection.size === 0) {
    process.stdout.write(`The key glob '${globs}' does not match any keys.\n`);
    return 1;
  }
  process.stdout.write(`The following keys are going to be deleted:\n${listing(selection)}\n`);
  if (!(await confirm('Proceed? [N/y] ', false, flags.yes))) return 1;
  for (const [state, ids] of selection) {
    for (const id of ids) {
      store.remove(id, state);
      if (!changes.some((c) => c.id === id)) changes.push({ id, act: 'delete' });
      process.stdout.write(`Key for minion ${printable(id)} deleted.\n`);
    }
  }
  return 0;
}

/**
 * Tells a running master that keys changed, so sessions of deleted or replaced keys close now.
 * The master also notices by itself within seconds, so an unreachable master is not an error.
 */
async function notifyMaster(socketPath: string, since: number, changes: KeyChange[]): Promise<void> {
  try {
    const reply = await requestOnce<KeysReconciled>(socketPath, { t: 'keys_changed', since, ...(changes.length > 0 ? { changes } : {}) }, 'keys_reconciled');
    for (const id of reply.closed) process.stdout.write(`Closed the session of ${printable(id)}: its key is no longer accepted.\n`);
  } catch {
    // no master running: nothing to tell
  }
}

/**
 * The re-image flow: the host came back with a new key, which the master kept among the ID's
 * denied keys. The key shown and confirmed is the one written to accepted, even if another peer
 * signs in as this ID meanwhile; with several candidates --finger must name one (threats.md #31).
 */
async function replace(store: KeyStore, flags: KeyFlags, id: string, changes: KeyChange[]): Promise<number> {
  if (store.deniedKeys(id).length === 0)
    throw new BrineError('KEY_NOT_FOUND', `no denied key for '${id}': --replace swaps an accepted key for the denied one a re-imaged host presented; see 'brine key -L'`);
  const chosen = chooseDenied(store, id, flags.finger);
  const denied = chosen.fingerprint;
  // the address comes from a file in the key store, written from what a peer presented
  const from = chosen.remote === undefined ? '' : ` from ${printable(chosen.remote)}`;
  const accepted = store.fingerprintOf('accepted', id);
  process.stdout.write(
    accepted === undefined
      ? `The denied key for ${id} (${denied}${from}) is going to be accepted.\n`
      : `The accepted key for ${id} (${accepted}) is going to be replaced by its denied key (${denied}${from}).\nDo this only if ${id} was re-imaged or re-keyed on purpose: check ${denied} against 'brine key -f' output on that host.\n`,
  );
  if (!(await confirm('Proceed? [n/Y] ', true, flags.yes))) return 1;
  settle(store, { state: 'denied', id, pem: chosen.pem, fingerprint: denied, denied: chosen }, 'accepted');
  changes.push({ id, act: 'accept' });
  process.stdout.write(`Key for minion ${id} replaced.\n`);
  return 0;
}

async function runKey(flags: KeyFlags, narrow: string | undefined): Promise<number> {
  // `salt-key -F master` is how operators read the master's fingerprint (and what our own
  // MASTER_FINGER_MISMATCH advice says), so -F and -P take an optional glob; nothing else does.
  if (narrow !== undefined && !flags.fingerAll && !flags.printAll) {
    throw new BrineError(
      'USAGE',
      `unexpected argument '${narrow}': only -F and -P take a glob as an argument (e.g. 'brine key -F master'); the other actions take it after their flag (-a/-r/-d/-f/-p <glob>)`,
    );
  }
  // --out applies to the listings (-L, -l, -f, -F, -p, -P); the moves keep salt-key's text and prompts
  const documentOut = keyOutputter(flags.out);
  const indent = flags.outIndent === undefined ? undefined : outIndent(flags.outIndent);
  const opts = masterOptions(flags);
  const store = new KeyStore(opts.pki_dir);
  store.ensureLayout();
  const all: KeyState[] = ['accepted', 'denied', 'pending', 'rejected'];

  const change = async (op: (changes: KeyChange[]) => Promise<number>): Promise<number> => {
    // the master's own 5 s check may close a session before we ask: it reports those since now too
    const since = Date.now();
    const changes: KeyChange[] = [];
    const code = await op(changes);
    await notifyMaster(controlSocketPath(opts), since, changes);
    return code;
  };
  if (flags.accept !== undefined) return change((c) => move(store, flags, flags.accept!, 'accepted', c));
  if (flags.acceptAll) return change((c) => move(store, flags, '*', 'accepted', c));
  if (flags.reject !== undefined) return change((c) => move(store, flags, flags.reject!, 'rejected', c));
  if (flags.rejectAll) return change((c) => move(store, flags, '*', 'rejected', c));
  if (flags.delete !== undefined) return change((c) => remove(store, flags, flags.delete!, c));
  if (flags.deleteAll) return change((c) => remove(store, flags, '*', c));
  if (flags.replace !== undefined) return change((c) => replace(store, flags, flags.replace!, c));

  const finger = flags.finger ?? (flags.fingerAll ? (narrow ?? '*') : undefined);
  if (finger !== undefined) {
    const out: string[] = [];
    let local: Record<string, string> | undefined;
    if ((flags.fingerAll && narrow === undefined) || matches(finger, 'master')) {
      const master = await loadOrCreateIdentity({ pkiDir: opts.pki_dir, name: 'master', commonName: opts.id || 'brine-master' });
      local = { 'master.pem': master.fingerprint, 'master.pub': master.fingerprint };
      out.push('Local Keys:', `master.pem:  ${master.fingerprint}`, `master.pub:  ${master.fingerprint}`);
    }
    const selection = select(store, all, finger);
    if (documentOut !== undefined) {
      // finger_all lists every key directory, even an empty one, as Salt's does
      if (flags.fingerAll && narrow === undefined) for (const state of all) if (!selection.has(state)) selection.set(state, []);
      if (selection.size === 0 && local === undefined) throw new BrineError('KEY_NOT_FOUND', `The key glob '${finger}' does not match any keys.`);
      const fingerOf = (state: KeyState, id: string) => (state === 'denied' ? store.deniedKeys(id)[0]?.fingerprint : store.fingerprintOf(state, id));
      process.stdout.write(formatKeyDocument(documentOut, perKeyDocument(selection, fingerOf, local), indent));
      return 0;
    }
    const body = listing(selection, (state, id) => (state === 'denied' ? deniedLines(store, id) : `${printable(id)}:  ${store.fingerprintOf(state, id) ?? '?'}`));
    if (body) out.push(body);
    if (out.length === 0) throw new BrineError('KEY_NOT_FOUND', `The key glob '${finger}' does not match any keys.`);
    process.stdout.write(`${out.join('\n')}\n`);
    return 0;
  }

  const print = flags.print ?? (flags.printAll ? (narrow ?? '*') : undefined);
  if (print !== undefined) {
    const selection = select(store, all, print);
    if (documentOut !== undefined && selection.size > 0) {
      process.stdout.write(
        formatKeyDocument(
          documentOut,
          perKeyDocument(selection, (state, id) => store.read(state, id)),
          indent,
        ),
      );
      return 0;
    }
    const body = listing(selection, (state, id) => `${printable(id)}:  ${(store.read(state, id) ?? '').trim()}`);
    if (!body) throw new BrineError('KEY_NOT_FOUND', `The key glob '${print}' does not match any keys.`);
    process.stdout.write(`${body}\n`);
    return 0;
  }

  let states = all;
  if (flags.list !== undefined && !flags.listAll) {
    const found = LIST_ARGS.find(([prefix]) => flags.list!.startsWith(prefix));
    if (!found) throw new BrineError('USAGE', `'${flags.list}' is not a valid argument to '--list': use acc, pre, un, rej, den or all`);
    states = found[1];
  }
  if (documentOut !== undefined) {
    process.stdout.write(formatKeyDocument(documentOut, listDocument(store, states), indent));
    return 0;
  }
  const lines: string[] = [];
  for (const [state, title] of SECTIONS) {
    if (!states.includes(state)) continue;
    // denied: one line per distinct key with its fingerprint and address (an ID can have several)
    lines.push(title, ...(state === 'denied' ? store.list(state).flatMap((id) => deniedLines(store, id)) : store.list(state).map(printable)));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

export function registerKey(program: Command): void {
  program
    .command('key')
    .description("manage minion keys (salt-key's flags)")
    .argument('[glob]', "with -F or -P only: limit to keys matching the glob (`brine key -F master` prints the master's own)")
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('-L, --list-all', 'list all keys (the default)')
    .option('-l, --list <arg>', 'list keys in one state: acc, pre, un, rej, den, all')
    .option('-a, --accept <glob>', 'accept pending keys matching the glob (comma-separated globs allowed)')
    .option('-A, --accept-all', 'accept all pending keys')
    .option('-r, --reject <glob>', 'reject pending keys matching the glob')
    .option('-R, --reject-all', 'reject all pending keys')
    .option('-d, --delete <glob>', 'delete keys matching the glob, in any state')
    .option('-D, --delete-all', 'delete all keys')
    .option('-f, --finger <glob>', 'print fingerprints of keys matching the glob; with --replace or -a/-r --include-denied: the fingerprint of the denied key meant')
    .option('-F, --finger-all', "print all fingerprints, including the master's own")
    .option('-p, --print <glob>', 'print public keys matching the glob')
    .option('-P, --print-all', 'print all public keys')
    .option('-y, --yes', 'answer yes to every question')
    .option('--include-rejected', 'accept also from rejected keys')
    .option('--include-accepted', 'reject also accepted keys')
    .option('--include-denied', 'accept or reject also denied keys')
    .option('--include-all', 'include rejected, accepted and denied keys (deprecated in Salt)')
    .option('--out <outputter>', 'for the listings (-L, -l, -f, -F, -p, -P): json, yaml, nested, raw or txt, in salt-key\'s layout ({"minions": [...], "minions_pre": [...], ...})')
    .option('--out-indent <n>', 'indentation for json/yaml output')
    .option('--replace <id>', "re-imaged host: make the ID's denied key (the one named by --finger when several were seen) the accepted one")
    .action(exitWith((narrow: string | undefined, flags: KeyFlags) => runKey(flags, narrow)));
}
