// Public surface of src/render: the renderer pipeline (shebang-selected, `jinja|yaml` by default)
// over a Jinja engine with Salt's compatibility layer. Imports nothing from the rest of brine but
// util: the caller supplies data, the function caller and the file loader.

export type { RenderEnv } from './types.js';
export { renderSls, renderTemplate } from './pipeline.js';
export { decryptData, GpgCache, type GpgOptions } from './gpg.js';
export { loadYaml } from './yaml-load.js';
export { bindTemplateArgs, TEMPLATE_FUNCTIONS, type LogLevel, type TemplateFunction, type TemplateHost } from './salt-functions/index.js';
export { traverse } from './jinja/salt-layer.js';
export { treeRendererDirs } from './python/tree-renderers.js';
export { newStateconfMemory, type StateconfMemory } from './stateconf/transform.js';
