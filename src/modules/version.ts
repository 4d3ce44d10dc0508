// The brine version reported by test.version and the brine_version grain.

export const BRINE_VERSION = '0.1.0';
