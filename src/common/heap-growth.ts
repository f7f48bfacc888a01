import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets the old generation grow past what survived the last full collection, in
 * percent. Left to itself V8 picks a factor up to 4× when collections are cheap relative to the
 * mutator: regapi's live heap is about 45 MiB, and under the bench's load (10 connections of
 * users pages or nested reads) the old space filled with promoted garbage up to 180–200 MiB
 * before each full collection, a resident set of 260–310 MiB. Nothing was retained (a heap
 * snapshot after the load holds the same 45 MiB: module source, code, the schema): requests in
 * flight across a scavenge are promoted and die soon after. At 100 % (twice what is live) the
 * resident set stays at 177–190 MiB with no measurable CPU cost; 50 % kept it near 160 MiB but
 * cost the nested user read about 15 % more CPU per request in more frequent full collections
 * (BENCHMARKS.md, "Memory"). A growth factor rather than --max-old-space-size: a larger live heap
 * (a bigger cache, a large export) still fits; only the garbage headroom shrinks.
 */
export const HEAP_GROWING_PERCENT = 100;

/** As `node --heap-growing-percent=100`; V8 reads the flag at every limit it computes. */
export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * The young generation's semi-space, in MiB (V8's default on 64-bit is 16: a 32 MiB new space).
 * At 8 the bench's peak resident set falls by 15–22 MiB (users page 193–196 → 172–174 MiB, the
 * nested user read 187 → 172–173) with requests per second unchanged within the noise
 * (BENCHMARKS.md, "Memory"): most of a request's objects die young either way. V8 sizes the new
 * space when the heap is set up, so this is a node flag on the command line (package.json's
 * `start`, the Dockerfile, the benches: SERVER_NODE_FLAGS), not something main.ts can set.
 */
export const SEMI_SPACE_MIB = 8;

/** The flags the server runs with; a test holds package.json's start script and the Dockerfile to them. */
export const SERVER_NODE_FLAGS = [
  `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
  `--max-semi-space-size=${SEMI_SPACE_MIB}`,
] as const;
