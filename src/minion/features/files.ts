// Files: salt:// for jobs, cached in the cachedir. A masterless minion (file_client: local)
// serves them from its own file_roots; otherwise they come from the master's file server over the
// session, each request answered by a file_reply on the link it went out on.

import type { Clock } from '../../util/clock.js';
import type { MinionOptions } from '../../config/index.js';
import type { FileClient } from '../../modules/index.js';
import { CachingFileClient } from '../../fileserver/caching-client.js';
import { FileRoots } from '../../fileserver/roots.js';
import { LocalFileSource } from '../../fileserver/file-source.js';
import { MasterFileSource } from '../master-files.js';
import type { MinionLink } from '../minion-link.js';
import type { LinkAccess, LinkMessage, MinionFeature } from './feature.js';

export interface FilesFeature extends MinionFeature {
  readonly client: FileClient;
  /** The files are this machine's own (jobs read them without asking the main thread's session). */
  readonly local: boolean;
}

function cacheOptions(opts: MinionOptions) {
  return { cachedir: opts.cachedir, chunkSize: opts.file_buffer_size };
}

/** file_client: local: the minion's own file_roots. */
export class LocalFiles implements FilesFeature {
  readonly name = 'files';
  readonly local = true;
  readonly client: FileClient;

  constructor(opts: MinionOptions) {
    this.client = new CachingFileClient(new LocalFileSource(new FileRoots(opts)), cacheOptions(opts));
  }
}

/** file_client: remote: the master's file server over the session. */
export class MasterFiles implements FilesFeature {
  readonly name = 'files';
  readonly local = false;
  readonly client: FileClient;
  private readonly source: MasterFileSource;

  constructor(opts: MinionOptions, links: LinkAccess, clock: Clock) {
    this.source = new MasterFileSource(() => links.all(), clock);
    this.client = new CachingFileClient(this.source, cacheOptions(opts));
  }

  onMessage(m: LinkMessage): boolean {
    if (m.t !== 'file_reply') return false;
    this.source.onReply(m);
    return true;
  }

  onDown(link: MinionLink): void {
    this.source.onLinkDown(link);
  }
}
