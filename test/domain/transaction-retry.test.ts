import { databaseFailureOf } from "../../src/db/database-failure";
import {
  DEADLOCK_RERUN_WINDOW_MS,
  mayRerun,
  retryDelayMs,
  sessionLostOf,
  TRANSACTION_ATTEMPTS,
  transactionConflictOf,
} from "../../src/db/transaction-conflicts";
import { queryPooled } from "../../src/db/pooled-select";
import { inTransaction } from "../../src/domain/transaction";
import { MAPLE } from "../fixtures/test-fixture";
import { describeOnMysqlFamily, openRawConnection, type MysqlFamilyConfig } from "../support/database";
import { openDomainDatabase, type DomainDatabase } from "../support/domain-database";
import { uidOf } from "../support/rows";
import { deadlockTwoUnits, lockRegistrationRow as lockRow } from "../support/conflicts";

// Issue 26 §2 / issue 22 §1: a transaction that loses a deadlock or a lock wait to another one is
// rerun whole by inTransaction, a bounded number of times; what still fails is a 503, never a 500.
// Real conflicts on MariaDB/MySQL: two units of work locking two rows in opposite order, and a row
// held by another connection past the lock wait timeout.

let t: DomainDatabase;
let first: number;
let second: number;
beforeAll(async () => {
  t = await openDomainDatabase();
  first = await uidOf(t.dataSource, MAPLE.groupId, MAPLE.miles);
  second = await uidOf(t.dataSource, MAPLE.groupId, MAPLE.bill);
});
afterAll(() => t.dispose());

describe("the retry policy", () => {
  it("waits longer after each attempt, with jitter, and keeps the bound small", () => {
    expect(retryDelayMs(1, () => 1)).toBe(20);
    expect(retryDelayMs(3, () => 1)).toBe(80);
    expect(retryDelayMs(3, () => 0)).toBe(0);
    expect(retryDelayMs(10, () => 1)).toBe(640);
    expect(TRANSACTION_ATTEMPTS.deadlock).toBeGreaterThanOrEqual(3);
    expect(TRANSACTION_ATTEMPTS.lock_wait_timeout).toBeGreaterThanOrEqual(3);
    expect(TRANSACTION_ATTEMPTS.connection_lost).toBeGreaterThanOrEqual(2);
  });

  it("reruns a deadlock victim past its count while within the window; lock waits and lost sessions stop at theirs", () => {
    // galera-service's family mix: a child's update through node 2 lost its eight runs in a row,
    // about a second after its first, while node 1 kept committing writes to the parent's row;
    // the burst ended moments later, and a ninth run would have committed.
    const spent = TRANSACTION_ATTEMPTS.deadlock;
    expect(mayRerun("deadlock", spent, 1100)).toBe(true);
    expect(mayRerun("deadlock", spent + 4, DEADLOCK_RERUN_WINDOW_MS - 1)).toBe(true);
    // A conflict that does not end is answered once the window is spent.
    expect(mayRerun("deadlock", spent, DEADLOCK_RERUN_WINDOW_MS)).toBe(false);
    // Within its count a victim reruns however late (slow runs on a loaded server).
    expect(mayRerun("deadlock", spent - 1, 4 * DEADLOCK_RERUN_WINDOW_MS)).toBe(true);
    // A lock wait timeout has already waited; a second lost session means the database is down.
    expect(mayRerun("lock_wait_timeout", TRANSACTION_ATTEMPTS.lock_wait_timeout - 1, 0)).toBe(true);
    expect(mayRerun("lock_wait_timeout", TRANSACTION_ATTEMPTS.lock_wait_timeout, 0)).toBe(false);
    expect(mayRerun("connection_lost", TRANSACTION_ATTEMPTS.connection_lost, 0)).toBe(false);
  });

  it("a unit of work that loses more deadlocks in a row than its count, then commits, is answered", async () => {
    // Each of its first runs fails as a certification loss does (1213); the backoff before the
    // run after them stays within the window (the longest waits sum to 2.54 s).
    const losses = TRANSACTION_ATTEMPTS.deadlock;
    const lost = Object.assign(new Error("Deadlock found when trying to get lock; try restarting transaction"), {
      errno: 1213,
      code: "ER_LOCK_DEADLOCK",
    });
    const before = { ...t.state.reruns.total };
    let runs = 0;
    const result = await inTransaction(t.context(), "test.burst", async () => {
      runs += 1;
      if (runs <= losses) throw lost;
      return runs;
    });
    expect(result).toBe(losses + 1);
    expect(t.state.reruns.total.deadlock - before.deadlock).toBe(losses);
    expect(t.state.reruns.total.exhausted).toBe(before.exhausted);
  });

  it("reruns only conflicts: another error is thrown at once", async () => {
    let runs = 0;
    await expect(
      inTransaction(t.context(), "test.failing", async () => {
        runs += 1;
        throw new Error("not a conflict");
      }),
    ).rejects.toThrow("not a conflict");
    expect(runs).toBe(1);
  });
});

describeOnMysqlFamily("transactions rerun after a conflict (MariaDB/MySQL)", () => {
  it("a deadlock between two units of work: the loser reruns and both commit", async () => {
    const before = { ...t.state.reruns.total };
    const { names, runs } = await deadlockTwoUnits(t.state, first, second);
    expect(names).toEqual(["a", "b"]);
    // InnoDB chose one victim; it ran again, the other ran once.
    expect(runs.a + runs.b).toBe(3);
    const after = t.state.reruns.total;
    expect(after.deadlock - before.deadlock).toBe(1);
    expect(after.exhausted).toBe(before.exhausted);
  });

  it("a lock wait timeout: reruns until the other transaction lets go", async () => {
    const config = t.config as MysqlFamilyConfig;
    const holder = await openRawConnection(config);
    try {
      await holder.query("START TRANSACTION");
      await holder.query("SELECT uid FROM registration WHERE uid = ? FOR UPDATE", [first]);
      const before = t.state.reruns.total.lock_wait_timeout;
      let runs = 0;
      const waiting = inTransaction(t.context(), "test.lock_wait", async ({ em }) => {
        runs += 1;
        await em.query("SET SESSION innodb_lock_wait_timeout = 1");
        await lockRow(em, first);
        return runs;
      });
      // Held past the first run's one-second wait, released before the bound is spent.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await holder.query("COMMIT");
      await expect(waiting).resolves.toBeGreaterThanOrEqual(2);
      expect(t.state.reruns.total.lock_wait_timeout - before).toBe(runs - 1);
    } finally {
      await holder.end();
    }
  });

  it("a conflict that outlasts every rerun is answered as overload (503), and is a real server error", async () => {
    // Provoke one real deadlock error to classify it: run both units outside inTransaction's reruns.
    const config = t.config as MysqlFamilyConfig;
    const connect = () => openRawConnection(config);
    const [a, b] = await Promise.all([connect(), connect()]);
    let lost: unknown = null;
    try {
      await a.query("START TRANSACTION");
      await b.query("START TRANSACTION");
      await lockRow(a, first);
      await lockRow(b, second);
      const results = await Promise.allSettled([lockRow(a, second), lockRow(b, first)]);
      lost = results.find((r) => r.status === "rejected")?.reason ?? null;
    } finally {
      await a.query("ROLLBACK").catch(() => undefined);
      await b.query("ROLLBACK").catch(() => undefined);
      await Promise.all([a.end(), b.end()]);
    }
    expect(transactionConflictOf(lost)).toBe("deadlock");
    expect(databaseFailureOf(lost)).toBe("overloaded");

    const before = t.state.reruns.total.exhausted;
    let runs = 0;
    await expect(
      inTransaction(t.context(), "test.connect", async () => {
        runs += 1;
        throw lost;
      }),
    ).rejects.toBe(lost);
    // Its count, then the runs that start within the window (mayRerun): bounded either way.
    expect(runs).toBeGreaterThanOrEqual(TRANSACTION_ATTEMPTS.deadlock);
    expect(t.state.reruns.total.exhausted - before).toBe(1);
  });
});

describeOnMysqlFamily("a session lost under a transaction (MariaDB/MySQL)", () => {
  /** Kills the session `em` runs on from another connection, as a node's death or a balancer's cut would end it. */
  async function killSessionOf(em: { query(sql: string): Promise<unknown> }) {
    const [{ id }] = (await em.query("SELECT CONNECTION_ID() AS id")) as { id: number }[];
    const killer = await openRawConnection(t.config as MysqlFamilyConfig);
    try {
      await killer.query("KILL CONNECTION ?", [Number(id)]);
    } finally {
      await killer.end();
    }
  }
  const lastNameOf = async (personId: number) =>
    String(
      (
        (await t.dataSource.query("SELECT last_name FROM person WHERE id = ?", [personId])) as { last_name: string }[]
      )[0].last_name,
    );

  it("lost before COMMIT: the unit reruns on a new connection and its write is there once", async () => {
    const before = t.state.reruns.total.connection_lost;
    let runs = 0;
    const result = await inTransaction(t.context(), "test.session_lost", async ({ em }) => {
      runs += 1;
      await em.query("UPDATE person SET last_name = CONCAT(last_name, '+') WHERE id = ?", [MAPLE.miles]);
      if (runs === 1) await killSessionOf(em);
      await em.query("SELECT 1");
      return runs;
    });
    expect(result).toBe(2);
    expect(t.state.reruns.total.connection_lost - before).toBe(1);
    // The first run's change went with its session: one '+' more, not two.
    expect((await lastNameOf(MAPLE.miles)).match(/\+/g)).toHaveLength(1);
  });

  it("lost while its COMMIT is on the way: not rerun (it may have committed), answered 503", async () => {
    const before = { ...t.state.reruns.total };
    const name = await lastNameOf(MAPLE.bill);
    let runs = 0;
    const failure = await inTransaction(t.context(), "test.commit_lost", async ({ em }) => {
      runs += 1;
      await em.query("UPDATE person SET last_name = 'Committed?' WHERE id = ?", [MAPLE.bill]);
      // The unit of work records nothing, so the COMMIT is the next statement on the killed session.
      await killSessionOf(em);
    }).catch((error: unknown) => error);
    expect(runs).toBe(1);
    expect(sessionLostOf(failure)).toBe(true);
    expect(databaseFailureOf(failure)).toBe("unavailable");
    expect(t.state.reruns.total).toEqual(before);
    // Here the kill came before the COMMIT reached the server, so nothing was committed.
    expect(await lastNameOf(MAPLE.bill)).toBe(name);
  });

  it("a lost session that outlasts its reruns fails after TRANSACTION_ATTEMPTS.connection_lost runs", async () => {
    const before = t.state.reruns.total.exhausted;
    let runs = 0;
    const failure = await inTransaction(t.context(), "test.session_lost_always", async ({ em }) => {
      runs += 1;
      await killSessionOf(em);
      await em.query("SELECT 1");
    }).catch((error: unknown) => error);
    expect(sessionLostOf(failure)).toBe(true);
    expect(runs).toBe(TRANSACTION_ATTEMPTS.connection_lost);
    expect(t.state.reruns.total.exhausted - before).toBe(1);
  });
});

describeOnMysqlFamily("a read outside a transaction whose session is lost (MariaDB/MySQL)", () => {
  /** Runs `sql` through the pooled path and kills its session from another connection while it sleeps. */
  async function killedMidway(sql: string, marker: string) {
    const killer = await openRawConnection(t.config as MysqlFamilyConfig);
    try {
      const running = queryPooled(t.dataSource.manager, sql, []).then(
        (rows) => ({ rows: rows as Record<string, unknown>[], error: null }),
        (error: unknown) => ({ rows: null, error }),
      );
      let killed = false;
      for (let i = 0; i < 100 && !killed; i += 1) {
        const [found] = (await killer.query(
          "SELECT ID AS id FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()",
          [`%${marker}%`],
        )) as unknown as [{ id: number }[]];
        if (found.length > 0) {
          await killer.query("KILL CONNECTION ?", [Number(found[0].id)]);
          killed = true;
        } else await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(killed).toBe(true);
      return await running;
    } finally {
      await killer.end();
    }
  }

  it("a SELECT runs once more on a new connection and answers", async () => {
    const outcome = await killedMidway("SELECT SLEEP(0.6) AS slept, 'read-lost' AS marker", "read-lost");
    expect(outcome.error).toBeNull();
    expect(outcome.rows).toEqual([{ slept: expect.anything(), marker: "read-lost" }]);
  });

  it("a statement that is not a read is not repeated: the lost session is the answer (503)", async () => {
    const outcome = await killedMidway("DO SLEEP(0.6), 'write-lost'", "write-lost");
    expect(sessionLostOf(outcome.error)).toBe(true);
    expect(databaseFailureOf(outcome.error)).toBe("unavailable");
  });
});
