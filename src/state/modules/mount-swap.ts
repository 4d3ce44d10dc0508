// mount.swap on Linux, following salt/states/mount.py swap(): activate a swap file or device
// (a symlink is followed to what /proc/swaps names), then keep its fstab line (`none <name>
// swap defaults 0 0`, found by device). Comments and changes are Salt's, including its test=True
// wording.

import fs from 'node:fs';
import path from 'node:path';
import { fstabTable, setFstab } from '../../modules/fstab.js';
import { activeSwaps, swapOn } from '../../modules/mount-swap.js';
import { defineState, type StateFunction } from '../types.js';
import { stateResult } from './state-result.js';

/** Salt's real_swap_device: a symlink's target, a relative one taken as a name under /dev. */
function realSwapDevice(name: string): string {
  let target: string;
  try {
    if (!fs.lstatSync(name).isSymbolicLink()) return name;
    target = fs.readlinkSync(name);
  } catch {
    return name;
  }
  return target.startsWith('/') ? target : `/dev/${path.basename(target)}`;
}

const swap = defineState({
  name: 'mount.swap',
  doc: 'Make sure a swap file or device is active, and (persist) listed in the fstab.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the swap file or device (LABEL= is not supported, as in Salt)' },
    { name: 'persist', type: 'bool', default: true, doc: 'keep a `none <name> swap defaults 0 0` line in the fstab' },
    { name: 'config', type: 'string', default: '/etc/fstab', doc: 'the fstab file' },
  ],
  example: '/var/swapfile:\n  mount.swap:\n    - persist: False',
  run: async (ctx, a) => {
    const { name, persist, config } = a.named;
    const real = realSwapDevice(name);
    const on = activeSwaps();
    let result: boolean | null = true;
    let comment: string;
    let changes: Record<string, unknown> = {};
    if (on[real] !== undefined) comment = `Swap ${name} already active`;
    else if (ctx.test) {
      result = null;
      comment = `Swap ${name} is set to be activated`;
    } else {
      const r = await swapOn(real);
      if (r.stats !== undefined) {
        comment = `Swap ${name} activated`;
        changes = { ...r.stats };
      } else {
        result = false;
        comment = `Swap ${name} failed to activate`;
      }
    }
    if (!persist) return stateResult(name, result, comment, changes);
    if (!fs.existsSync(config)) {
      // Salt's mount.fstab reads a missing file as empty; set_fstab then answers 'bad config'.
      if (ctx.test) return stateResult(name, null, on[name] !== undefined ? `Swap ${name} is set to be added to the fstab and to be activated` : comment, changes);
      return stateResult(name, false, `${comment}. However, the fstab was not found.`, changes);
    }
    const text = fs.readFileSync(config, 'utf8');
    const table = fstabTable(text);
    if (ctx.test) {
      const listed = Object.hasOwn(table, name) || Object.values(table).some((e) => e.device === name);
      if (listed) return stateResult(name, result, comment, changes);
      // Salt's wording: the "and to be activated" comment is given only when the swap is already on.
      return stateResult(name, null, on[name] !== undefined ? `Swap ${name} is set to be added to the fstab and to be activated` : comment, changes);
    }
    // A `none` line for this device with another file system type is left alone, as in Salt.
    if (table.none !== undefined && table.none.device === name && table.none.fstype !== 'swap') return stateResult(name, result, comment, changes);
    const decided = setFstab(text, { name: 'none', device: name, fstype: 'swap', opts: 'defaults', dump: '0', pass_num: '0' }, 'auto');
    if (decided.status === 'present') return stateResult(name, result, comment, changes);
    fs.writeFileSync(config, decided.text);
    const persisted = decided.status === 'new' ? ['new', 'Added new entry to the fstab.'] : ['update', 'Updated the entry in the fstab.'];
    return stateResult(name, result, `${comment}. ${persisted[1]}`, { ...changes, persist: persisted[0] });
  },
});

export const swapStates: readonly StateFunction[] = [swap];
