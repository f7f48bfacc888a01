import type { EntityManager } from "typeorm";
import { readProjectCounters } from "../../src/data/project-counters.data";
import { projectTotalsOf } from "../../src/domain/projects/project-counters";
import { readSummaries as readSummaryRows } from "../../src/data/user-summary.data";
import { RowShapeError } from "../../src/data/sql-rows";
import { Registration } from "../../src/entities";
import { MAPLE } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";

// The data modules read typed rows: a column their SQL fails to return (a misspelt alias) fails
// the read instead of reading as 0. A manager that renames one column of every result stands in
// for the misspelt alias, so the real statements run against the real database.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

function renamingColumn(em: EntityManager, column: string, misspelt: string): EntityManager {
  return new Proxy(em, {
    get(target, property, receiver) {
      if (property !== "query") return Reflect.get(target, property, receiver);
      return async (sql: string, parameters?: unknown[]) => {
        const rows: Record<string, unknown>[] = await target.query(sql, parameters);
        return rows.map((row) => {
          if (!(column in row)) return row;
          const { [column]: value, ...others } = row;
          return { ...others, [misspelt]: value };
        });
      };
    },
  });
}

const milesUid = async () =>
  (await t.dataSource.manager.findOneByOrFail(Registration, { projectId: MAPLE.groupId, personId: MAPLE.miles })).uid;

describe("data modules read typed rows", () => {
  it("a user summary reads its sums as numbers on every driver", async () => {
    const uid = await milesUid();
    const rows = await readSummaryRows(t.dataSource.manager, [uid]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ uid, cloginId: MAPLE.miles, totalOrderCents: 35000, totalPaidCents: 10000 });
  });

  it("a summary statement that misses a column fails, naming it, instead of reading 0", async () => {
    const em = renamingColumn(t.dataSource.manager, "order_cents", "ordr_cents");
    const read = readSummaryRows(em, [await milesUid()]);
    await expect(read).rejects.toThrow(RowShapeError);
    await expect(readSummaryRows(em, [await milesUid()])).rejects.toThrow(/column "order_cents" is missing/);
  });

  it("a project counters statement that misses a column fails too", async () => {
    const em = renamingColumn(t.dataSource.manager, "parent_active_registrations", "parent_activ_registrations");
    await expect(readProjectCounters(em, { projectId: MAPLE.groupId })).rejects.toThrow(
      /column "parent_active_registrations" is missing/,
    );
    const counters = await readProjectCounters(t.dataSource.manager, { projectId: MAPLE.groupId });
    expect(projectTotalsOf(counters.get(MAPLE.groupId)!)).toEqual({
      users: 3,
      activeUsers: 2,
      orderCents: 35000,
      paidCents: 10000,
    });
  });
});
