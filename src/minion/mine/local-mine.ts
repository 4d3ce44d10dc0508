// The mine of a masterless minion (file_client: local), as Salt keeps it: this minion's own mine
// entries in a file of its cachedir (`mine.json`, mode 0600), answering the same requests the
// master answers. mine.get can only see this minion: it returns its own data when the target
// matches it, as Salt's masterless mine.get does.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrineError, errorMessage, errnoCode } from '../../util/errors.js';
import { writeFileAtomicSync } from '../../util/atomic-write.js';
import { isPlainObject, MAX_MINE_JSON, type MineEntry, type TargetType } from '../../protocol/index.js';
import { minionMatches } from '../../targeting/index.js';
import type { Grains } from '../../modules/index.js';
import type { MineBackend, MineBody } from './master-mine.js';

export class LocalMine implements MineBackend {
  readonly connected = true;
  readonly file: string;

  constructor(
    cachedir: string,
    private readonly id: string,
    private readonly grains: () => Grains,
  ) {
    this.file = path.join(cachedir, 'mine.json');
  }

  async request(body: MineBody): Promise<unknown> {
    switch (body.t) {
      case 'mine_send': {
        const mine = body.clear ? {} : this.read();
        Object.assign(mine, body.data);
        this.write(mine);
        return undefined;
      }
      case 'mine_get': {
        const mine = this.read();
        const mineMatches = minionMatches(body.tgt, body.tgtType as TargetType, this.id, this.grains(), body.delimiter);
        const out: Record<string, Record<string, unknown>> = {};
        for (const fun of body.funs) {
          const entry = mine[fun];
          out[fun] = mineMatches && entry !== undefined ? { [this.id]: entry.data } : {};
        }
        return out;
      }
      case 'mine_delete': {
        const mine = this.read();
        if (!Object.hasOwn(mine, body.fun)) return undefined;
        delete mine[body.fun];
        this.write(mine);
        return undefined;
      }
      case 'mine_flush':
        fs.rmSync(this.file, { force: true });
        return undefined;
    }
  }

  private read(): Record<string, MineEntry> {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return {};
      throw new BrineError('MINE_UNAVAILABLE', `cannot read the local mine ${this.file}: ${errorMessage(err)}; check the permissions of cachedir`);
    }
    try {
      const value: unknown = JSON.parse(text);
      return isPlainObject(value) ? (value as Record<string, MineEntry>) : {};
    } catch {
      // a damaged file is replaced by the next update rather than blocking every mine call
      return {};
    }
  }

  private write(mine: Record<string, MineEntry>): void {
    const text = JSON.stringify(mine);
    if (text.length > MAX_MINE_JSON) {
      throw new BrineError('MINE_DATA_TOO_LARGE', `the local mine would be ${text.length} characters of JSON, over the limit of ${MAX_MINE_JSON}; nothing was stored. Mine smaller data`);
    }
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      writeFileAtomicSync(this.file, text, 0o600);
    } catch (err) {
      throw new BrineError('MINE_UNAVAILABLE', `cannot write the local mine ${this.file}: ${errorMessage(err)}; check the permissions of cachedir`);
    }
  }
}
