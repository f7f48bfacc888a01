import { QueryFailedError, type EntitySubscriberInterface } from "typeorm";
import { onCommitWithEvents } from "../../src/db/commit-signal";
import { withSqlTally } from "../../src/db/sql-counter";
import { selectRawRows, selectRows, splitListArms, withListArms, type ListSql } from "../../src/data/sql-rows";
import { describeOnMysqlFamily, openTestDatabase, type TestDatabase } from "../support/database";

// selectRows outside a transaction runs its statement straight on a pooled connection on
// MySQL/MariaDB (src/db/pooled-select.ts) and through em.query elsewhere: either way the statement
// is counted (process total and the request's tally) and a failure is TypeORM's QueryFailedError.

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.dispose());

describe("selectRows outside a transaction", () => {
  it("reads rows and counts the statement in the tally and the total", async () => {
    const before = db.sql.total;
    const { tally, result } = withSqlTally(() =>
      selectRows(db.dataSource.manager, { n: "int" }, "SELECT 1 + ? AS n", [1]),
    );
    expect(await result).toEqual([{ n: 2 }]);
    expect(tally.statements).toBe(1);
    expect(db.sql.total - before).toBe(1);
  });

  it("fails with QueryFailedError carrying the driver's error, and frees its connection", async () => {
    const failing = selectRows(db.dataSource.manager, { n: "int" }, "SELECT n FROM no_such_table", []);
    await expect(failing).rejects.toBeInstanceOf(QueryFailedError);
    await expect(failing).rejects.toHaveProperty("driverError");
    // More reads than the pool has connections: a connection kept by the failure would hang one.
    const reads = Array.from({ length: 12 }, (_, i) =>
      selectRows(db.dataSource.manager, { n: "int" }, "SELECT ? AS n", [i]),
    );
    expect((await Promise.all(reads)).map(([row]) => row.n)).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it("inside a transaction reads on the transaction's own connection (a temporary table is per connection)", async () => {
    const rows = await db.dataSource.transaction(async (em) => {
      await em.query("CREATE TEMPORARY TABLE pooled_probe (n INT)");
      await em.query("INSERT INTO pooled_probe (n) VALUES (7)");
      // Twelve at once: any of them taken from the pool instead would not see the table.
      const reads = await Promise.all(
        Array.from({ length: 12 }, () => selectRows(em, { n: "int" }, "SELECT n FROM pooled_probe", [])),
      );
      await em.query(
        "DROP TEMPORARY TABLE pooled_probe".replace(
          " TEMPORARY",
          em.connection.options.type === "better-sqlite3" ? "" : " TEMPORARY",
        ),
      );
      return reads.flat();
    });
    expect(rows).toEqual(Array.from({ length: 12 }, () => ({ n: 7 })));
  });

  it("inside a transaction runs on the transaction's connection", async () => {
    const rows = await db.dataSource.transaction((em) => selectRows(em, { n: "int" }, "SELECT 3 AS n", []));
    expect(rows).toEqual([{ n: 3 }]);
  });
});

describeOnMysqlFamily("entity subscribers and the pooled path (MySQL/MariaDB)", () => {
  /** Query runners made while `work` runs: em.query makes one per statement, the pooled path none. */
  async function runnersMadeBy(work: () => Promise<unknown>): Promise<number> {
    const spy = jest.spyOn(db.dataSource, "createQueryRunner");
    try {
      await work();
      return spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
  }
  const read = () => selectRows(db.dataSource.manager, { n: "int" }, "SELECT 4 AS n", []);

  it("a subscriber of commits alone (the runtime's commit signal) leaves reads on the pooled path", async () => {
    const unsubscribe = onCommitWithEvents(db.dataSource, () => undefined);
    try {
      expect(await runnersMadeBy(read)).toBe(0);
    } finally {
      unsubscribe();
    }
  });

  it("a subscriber of statements gets em.query's broadcasts, so its reads go through em.query", async () => {
    const seen: string[] = [];
    const subscriber: EntitySubscriberInterface = { beforeQuery: (event) => void seen.push(event.query) };
    db.dataSource.subscribers.push(subscriber);
    try {
      expect(await runnersMadeBy(read)).toBe(1);
      expect(seen).toEqual(["SELECT 4 AS n"]);
    } finally {
      db.dataSource.subscribers.splice(db.dataSource.subscribers.indexOf(subscriber), 1);
    }
  });
});

describe("a statement with list arms (withListArms, splitListArms)", () => {
  // The nested user read's shape on a derived table: a head of two rows, a list whose rows name
  // their owner, a second list that finds no row.
  const items: ListSql = {
    from: "(SELECT 1 AS owner_id, 10 AS n, 'x' AS s UNION ALL SELECT 1, 11, 'y' UNION ALL SELECT 2, 20, 'z') i",
    owner: "i.owner_id",
    members: [
      ["n", "i.n"],
      ["s", "i.s"],
    ],
  };

  it("returns the head's rows and each arm's rows as objects by owner, in one statement", async () => {
    const em = db.dataSource.manager;
    const { sql, parameters } = withListArms(
      em,
      {
        select: "h.k AS k, h.label AS label",
        rest: "FROM (SELECT 1 AS k, 'one' AS label UNION ALL SELECT 2, 'two') h WHERE h.k >= ?",
        columns: 2,
        parameters: [1],
      },
      [
        { name: "items", list: items, join: "", where: "i.n > ?", parameters: [10] },
        { name: "none", list: items, join: "", where: "i.n > ?", parameters: [99] },
      ],
    );
    const { tally, result } = withSqlTally(() => selectRawRows(em, sql, parameters));
    const { head, lists } = splitListArms(await result, sql);
    expect(tally.statements).toBe(1);
    expect(head.map((row) => [Number(row.k), row.label]).sort()).toEqual([
      [1, "one"],
      [2, "two"],
    ]);
    expect([...lists.keys()]).toEqual(["items"]);
    expect(
      lists
        .get("items")!
        .get(1)!
        .sort((a, b) => Number(a.n) - Number(b.n)),
    ).toEqual([{ n: 11, s: "y" }]);
    expect(lists.get("items")!.get(2)).toEqual([{ n: 20, s: "z" }]);
  });

  it("refuses rows that lack the arms' columns, instead of reading every row as the head's", () => {
    expect(() => splitListArms([{ k: 1 }], "SELECT k")).toThrow(/column "list_arm"/);
  });
});
