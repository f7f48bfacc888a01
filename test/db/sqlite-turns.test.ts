import type { DataSource } from "typeorm";
import { SqliteTurns } from "../../src/db/sqlite-turns";

// SQLite's transactions take turns on the one connection. Their statements answer at once, so a
// queue of turns would otherwise run as one chain of promise callbacks and keep the event loop
// (sockets to read, connections to accept) waiting until the whole queue had run.

const sqliteTurns = () => new SqliteTurns({ options: { type: "better-sqlite3" } } as DataSource);

/** Work that keeps the process busy for `ms`, as a transaction of synchronous statements does. */
function busyFor(ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until);
  return Promise.resolve();
}

describe("SQLite's transaction turns", () => {
  it("run in the order they were asked for, each after the one before has ended", async () => {
    const turns = sqliteTurns();
    const log: string[] = [];
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        turns.run(async () => {
          log.push(`start ${i}`);
          await busyFor(1);
          log.push(`end ${i}`);
        }),
      ),
    );
    expect(log).toEqual([0, 1, 2, 3, 4].flatMap((i) => [`start ${i}`, `end ${i}`]));
  });

  it("let the event loop run between turns while a queue of them is worked off", async () => {
    const turns = sqliteTurns();
    const order: string[] = [];
    const queue = Array.from({ length: 40 }, (_, i) =>
      turns.run(async () => {
        // I/O that becomes ready while the queue runs: a request arriving, a connection to accept.
        if (i === 0) setImmediate(() => order.push("event loop"));
        order.push(`turn ${i}`);
        await busyFor(1);
      }),
    );
    await Promise.all(queue);
    // 40 turns of 1 ms each: the loop gets its turn within the first few, not after the 40th.
    expect(order.indexOf("event loop")).toBeGreaterThan(0);
    expect(order.indexOf("event loop")).toBeLessThan(10);
  });

  it("hold the turn for a read snapshot until it is released", async () => {
    const turns = sqliteTurns();
    const order: string[] = [];
    const release = await turns.hold();
    const after = turns.run(async () => void order.push("write"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    order.push("snapshot ends");
    release();
    await after;
    expect(order).toEqual(["snapshot ends", "write"]);
  });

  it("are not taken on MySQL/MariaDB, where a pool gives each transaction its own connection", async () => {
    const turns = new SqliteTurns({ options: { type: "mariadb" } } as DataSource);
    let ran = false;
    const running = turns.run(async () => void (ran = true));
    // Started at once, in this call, not after a turn of the loop.
    expect(ran).toBe(true);
    await running;
  });
});
