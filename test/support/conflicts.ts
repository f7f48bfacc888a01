import { inTransaction } from "../../src/domain/transaction";
import { createRequestContext } from "../../src/domain/context";
import type { ProcessState } from "../../src/domain/process-state";

/** Resolves for everyone once `parties` callers have arrived. */
export function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return async () => {
    arrived += 1;
    if (arrived === parties) open();
    await opened;
  };
}

type Querying = { query(sql: string, parameters: unknown[]): Promise<unknown> };

/** Locks one registration row for the rest of the transaction. */
export const lockRegistrationRow = (em: Querying, uid: number) =>
  em.query(`SELECT uid FROM registration WHERE uid = ? FOR UPDATE`, [uid]);

/**
 * A real deadlock on MySQL/MariaDB between two units of work run by inTransaction: each locks one
 * of two registrations, waits until the other holds its own, then asks for the other's. InnoDB
 * rolls one back; inTransaction reruns it. Resolves with how many times each unit ran.
 */
export async function deadlockTwoUnits(state: ProcessState, first: number, second: number) {
  const meet = barrier(2);
  const runs = { a: 0, b: 0 };
  const unit = (name: "a" | "b", mine: number, theirs: number) =>
    inTransaction(createRequestContext(state, `deadlock-${name}`), "test.deadlock", async ({ em }) => {
      runs[name] += 1;
      await lockRegistrationRow(em, mine);
      if (runs[name] === 1) await meet();
      await lockRegistrationRow(em, theirs);
      await em.query(`UPDATE registration SET star = star WHERE uid IN (?, ?)`, [mine, theirs]);
      return name;
    });
  const names = await Promise.all([unit("a", first, second), unit("b", second, first)]);
  return { names, runs };
}
