// The hook kit: what every controller folder shares (request readers, child helpers, value
// readers, outcomes, related-type tables). Controllers import the kit, never each other; the kit
// imports only domain/.
export * from './errors.js';
export * from './values.js';
export * from './request.js';
export * from './children.js';
export * from './outcome.js';
export * from './related.js';
