import { randomBytes } from "node:crypto";
import { hashPassword } from "../../auth/secrets";
import { createRequestContext } from "../../domain/context";
import type { ProcessState } from "../../domain/process-state";
import { inTransaction } from "../../domain/transaction";
import { databaseKind, type DatabaseKind } from "../cli-session";
import { emptyCounts, seedChunk, type SeedCounts, type SharedRowValues } from "./seed-chunk";
import { readSeedPlan } from "./seed-plan";
import { pseudoRandom } from "./synthetic-values";

export type { SeedCounts };

/** Every seeded person with a password shares this one (hashed once per run). */
export const SEED_PASSWORD = "seed-password";
export const DEFAULT_SEED_BATCH = 1_000;
export const MAX_SEED_BATCH = 10_000;

// Bound parameters per statement: SQLite's SQLITE_MAX_VARIABLE_NUMBER, and the 16-bit
// placeholder count of the MySQL protocol.
const BIND_LIMIT: Record<DatabaseKind, number> = { sqlite: 32_766, "mysql-family": 65_535 };

export interface SeedOptions {
  groupId: number;
  users: number;
  /** Registrants per chunk; each chunk is one transaction. */
  batchSize?: number;
  /** Called after each committed chunk with the number of registrants seeded so far. */
  onChunk?: (seeded: number) => void;
  now?: Date;
  /** Seed of the pseudo-random choices, so a run can be repeated with the same shape. */
  randomSeed?: number;
  /** Bound parameters per statement; default the database's limit (tests lower it to split inserts). */
  maxBindVariables?: number;
}

export interface SeedResult extends SeedCounts {
  chunks: number;
  /** Every seeded username starts with this (and ends with @seed.test). */
  usernamePrefix: string;
}

/**
 * Bulk synthetic registrants in an existing project, with multi-row inserts: persons,
 * registrations, the initial form set (some completed, with answers to every field of a completed
 * form), statuses, tags, carts and payments. In a family project every third registrant of a
 * chunk is a child of the one before (so a parent is always in its child's chunk). Each chunk of
 * `batchSize` registrants is one transaction, so an interrupted run leaves only whole chunks.
 */
export async function seedRegistrants(state: ProcessState, options: SeedOptions): Promise<SeedResult> {
  const { dataSource } = state;
  const batchSize = Math.min(options.batchSize ?? DEFAULT_SEED_BATCH, MAX_SEED_BATCH);
  const now = options.now ?? new Date();
  const plan = await readSeedPlan(dataSource.manager, options.groupId, now);
  const random = pseudoRandom(options.randomSeed ?? 20270101);
  const shared: SharedRowValues = {
    // One slow scrypt hash for the whole run: hashing per person would take hours.
    passwordHash: await hashPassword(SEED_PASSWORD),
    usernamePrefix: `seed-${Date.now().toString(36)}${randomBytes(3).toString("hex")}-`,
    now,
    bindLimit: Math.min(options.maxBindVariables ?? Infinity, BIND_LIMIT[databaseKind(dataSource)]),
  };

  const result: SeedResult = { ...emptyCounts(), chunks: 0, usernamePrefix: shared.usernamePrefix };
  for (let start = 0; start < options.users; start += batchSize) {
    const size = Math.min(batchSize, options.users - start);
    const ctx = createRequestContext(state, `seed-chunk-${result.chunks + 1}`);
    let counts: SeedCounts;
    try {
      counts = await inTransaction(ctx, "cli.seed", ({ em }) => seedChunk(em, plan, shared, random, start, size));
    } catch (error) {
      throw new SeedInterruptedError(result, error);
    }
    for (const key of Object.keys(counts) as (keyof SeedCounts)[]) result[key] += counts[key];
    result.chunks += 1;
    options.onChunk?.(start + size);
  }
  return result;
}

/** A chunk failed: it was rolled back, the chunks before it (counted in `committed`) stay. */
export class SeedInterruptedError extends Error {
  constructor(
    readonly committed: SeedResult,
    readonly cause: unknown,
  ) {
    super(
      `seed stopped after ${committed.registrations} registrants (${committed.chunks} whole chunks kept, the failed one rolled back): ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = "SeedInterruptedError";
  }
}
