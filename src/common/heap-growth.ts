import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets the old generation grow past what survived the last full collection, in
 * percent. Left to itself V8 picks a factor up to 4× when collections are cheap relative to the
 * mutator, and under load regapi's old space fills with promoted garbage, not with anything
 * retained: requests in flight across a scavenge are promoted and die soon after, so the
 * resident set grows several times past what is live. 100 (twice what is live) bounds that
 * headroom at no measurable CPU cost, where a lower factor costs full collections on every
 * request path (the measurements: BENCHMARKS.md, "Memory"). A growth factor rather than
 * --max-old-space-size: a larger live heap (a bigger cache, a large export) still fits; only the
 * garbage headroom shrinks.
 */
export const HEAP_GROWING_PERCENT = 100;

/** As `node --heap-growing-percent=100`; V8 reads the flag at every limit it computes. */
export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * The young generation's semi-space, in MiB (V8's default on 64-bit is 16). Half the default
 * lowers the bench's peak resident set with throughput unchanged within the noise (BENCHMARKS.md,
 * "Memory"): most of a request's objects die young either way. V8 sizes the new
 * space when the heap is set up, so this is a node flag on the command line (package.json's
 * `start`, the Dockerfile, the benches: SERVER_NODE_FLAGS), not something main.ts can set.
 */
export const SEMI_SPACE_MIB = 8;

/** The flags the server runs with; a test holds package.json's start script and the Dockerfile to them. */
export const SERVER_NODE_FLAGS = [
  `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
  `--max-semi-space-size=${SEMI_SPACE_MIB}`,
] as const;
