import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets the old generation grow past what survived the last full collection, in
 * percent. Left to itself V8 picks a factor up to 4× when collections are cheap relative to the
 * mutator: regapi's live heap is about 45 MiB, and under the bench's load (10 connections of
 * users pages or nested reads) the old space filled with promoted garbage up to 180–200 MiB
 * before each full collection, a resident set of 260–310 MiB. Nothing was retained (a heap
 * snapshot after the load holds the same 45 MiB: module source, code, the schema): requests in
 * flight across a scavenge are promoted and die soon after. At 50 % the limit is about 70 MiB
 * and the resident set stays near 160 MiB, with no measurable loss of requests per second
 * (BENCHMARKS.md, "Memory"). A growth factor rather than --max-old-space-size: a larger live
 * heap (a bigger cache, a large export) still fits; only the garbage headroom shrinks.
 */
export const HEAP_GROWING_PERCENT = 50;

/** As `node --heap-growing-percent=50`; V8 reads the flag at every limit it computes. */
export function limitHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
