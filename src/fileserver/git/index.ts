// The git layer (gitfs and git_pillar): a remote kept fresh as a bare clone with its trees
// materialised per commit (GitMirror), a pool of remotes updated one fetch at a time with their
// health (GitRemotePool), the per-remote parameters read as Salt reads them, the gitfs saltenv
// mapping and the gitfs file server backend. Spawns the real `git` program.

export { GitMirror, type GitRefs, type FetchResult } from './git-mirror.js';
export { gitAuthEnv, type GitAuth } from './credentials.js';
export { redactUrls } from './git-run.js';
export { readGitfsRemotes, envExposed, type GitfsRemote, type GitfsOptions, type SaltenvConf, type RefType } from './remote-config.js';
export { bool, paramReaders, readAuth, readRemoteEntries, type ParamReaders, type RemoteEntry } from './remote-params.js';
export { envSources, envsOf, refFor, resolveRef, type EnvSource } from './env-map.js';
export { RemoteHealth, type RemoteStatus } from './remote-health.js';
export { GitRemotePool, type GitRemotes, type RemoteIdentity, type PoolMember, type PoolRemoteConfig, type RemotePoolOptions, type RemoteUpdate } from './remote-pool.js';
export { GitfsBackend, underMountpoint, type GitfsBackendOptions } from './gitfs-backend.js';
