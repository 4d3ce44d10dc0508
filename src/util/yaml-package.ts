// The `yaml` package, required on first use: it is 72 CommonJS files (~40 ms and a few MB at every
// start), and most runs never need it (configs and rendered SLS take util/yaml-fast.ts, and `brine
// run '*' test.ping` has no argument to type). CommonJS, so require gives what import would.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let loaded: typeof import('yaml') | undefined;

export function yamlPackage(): typeof import('yaml') {
  loaded ??= require('yaml') as typeof import('yaml');
  return loaded;
}
