// Public surface of src/fileserver: path checks, file_roots, the caching file client, the
// request server and the `cp` execution module. Pure of sockets.

export { checkPrefix, checkRelativePath, checkSaltenv, parseSaltUrl, slsNameOf, type SaltPath } from './path-check.js';
export { FileRoots, readFileChunk, type FileRootsConfig, type FoundFile } from './roots.js';
export { FileBackends, type FileBackend } from './backend.js';
export { HashCache, sha256File } from './hash-cache.js';
export { LocalFileSource, readFromRoots, notFound, type FileChunk, type FileSource } from './file-source.js';
export { CachingFileClient, type CachingClientOptions } from './caching-client.js';
export { serveFileRequest, type ServeOptions } from './serve.js';
export { cpFunctions } from './cp-module.js';
export { slsFileFunctions } from './sls-files-module.js';
