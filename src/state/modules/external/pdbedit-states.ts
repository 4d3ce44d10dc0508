// pdbedit.managed / present / absent (Salt 3007's salt/states/pdbedit.py): Samba accounts in the
// passdb, through the pdbedit program (Debian: samba-common-bin). brine lists and deletes
// accounts as Salt's salt/modules/pdbedit.py does; creating or changing one (Salt's
// pdbedit.modify, with NT hashes) is not implemented, so managed answers test=True and fails a
// real run that would change an account, naming why. Salt acts even under test=True; brine never.

import { runArgv } from '../../../modules/host-tools.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../../types.js';
import { stateResult } from '../state-result.js';
import { cannotAct, findProgram, isUnreachable, wouldChange } from './backend.js';

/** Salt's pdbedit.list(verbose=False): the account names of `pdbedit --list` (user:uid:full name). */
async function accounts(ctx: StateContext, pdbedit: string): Promise<string[]> {
  const r = await runArgv('pdbedit', [pdbedit, '--list'], { signal: ctx.exec.signal, timeoutMs: 30_000 });
  if (r.retcode !== 0) throw new Error(`pdbedit --list failed: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.split(':').length >= 3)
    .map((l) => l.split(':')[0]!);
}

async function absent(ctx: StateContext, name: string): Promise<StateResult> {
  const prog = findProgram('pdbedit', 'samba-common-bin');
  // Without pdbedit there is no passdb to hold the account
  if (isUnreachable(prog) || !(await accounts(ctx, prog.path)).includes(name)) return stateResult(name, true, `account ${name} is absent`);
  if (ctx.test) return wouldChange(name, `account ${name} would be deleted`, { [name]: 'deleted' });
  const r = await runArgv('pdbedit', [prog.path, '--delete', name], { signal: ctx.exec.signal, timeoutMs: 30_000 });
  if (r.retcode !== 0) return stateResult(name, false, (r.stderr || r.stdout).trim());
  return stateResult(name, true, '', { [name]: 'deleted' });
}

async function managed(ctx: StateContext, name: string): Promise<StateResult> {
  const prog = findProgram('pdbedit', 'samba-common-bin');
  const exists = !isUnreachable(prog) && (await accounts(ctx, prog.path)).includes(name);
  if (ctx.test) return wouldChange(name, exists ? `account ${name} would be updated if it differs` : `account ${name} would be created`, exists ? {} : { [name]: 'created' });
  if (isUnreachable(prog)) return cannotAct(ctx, name, prog);
  return cannotAct(ctx, name, {
    reason: 'brine does not create or change Samba accounts yet (Salt pdbedit.modify); set the account with `pdbedit --create` or `smbpasswd -a` in a cmd.run state meanwhile',
  });
}

const NAME = { name: 'name', type: 'string', required: true, doc: 'the account (login)' } as const;
const EXAMPLE = 'alice:\n  pdbedit.managed:\n    - password: 0123456789ABCDEF0123456789ABCDEF\n    - password_hashed: True';

function managedState(fun: string, doc: string): StateFunction {
  return defineState({
    name: `pdbedit.${fun}`,
    doc,
    params: [NAME],
    // Salt's managed takes **kwargs (login, password, password_hashed, domain, profile, ...)
    kwargs: true,
    example: EXAMPLE.replace('managed', fun),
    run: (ctx, a) => managed(ctx, a.named.name),
  });
}

export const pdbeditStates: readonly StateFunction[] = [
  managedState('managed', 'Make sure a Samba account exists with these settings (test=True only; a real change is not implemented yet).'),
  managedState('present', 'Alias of pdbedit.managed.'),
  defineState({
    name: 'pdbedit.absent',
    doc: 'Make sure a Samba account does not exist (pdbedit --delete).',
    params: [NAME],
    example: 'olduser:\n  pdbedit.absent: []',
    run: (ctx, a) => absent(ctx, a.named.name),
  }),
];
