// The minion daemon's features (docs/architecture.md, "Minion features"): what minion.ts wires.
export { buildMinionFeatures, type MinionFeatures } from './build.js';
export { MinionLinks, type LinksHost } from './links.js';
export type { LinkAccess, LinkMessage, MinionFeature, MinionParts } from './feature.js';
export type { RefusedMaster } from './presence.js';
