// The file server (salt://) for accepted minions: file_roots and gitfs, with gitfs's update loop.
// Built with the other features, so a bad file_roots fails the master's start.

import type { MinionMessage } from '../../protocol/index.js';
import { FileService } from '../file-service.js';
import type { MinionSession } from '../minion-session.js';
import type { MasterFeature } from './master-feature.js';

export class Files implements MasterFeature {
  readonly name = 'files';
  readonly service: FileService;

  constructor(...args: ConstructorParameters<typeof FileService>) {
    this.service = new FileService(...args);
  }

  onMessage(message: MinionMessage, s: MinionSession): boolean {
    if (message.t !== 'file_list' && message.t !== 'file_stat' && message.t !== 'file_read') return false;
    this.service.handle(s, message);
    return true;
  }

  stop(): void {
    this.service.close();
  }
}
