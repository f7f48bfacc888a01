import { readProjectCounters } from "../../src/data/project-counters.data";
import { createRequestContext } from "../../src/domain/context";
import { projectTotalsOf } from "../../src/domain/projects/project-counters";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { MAPLE, testFixture } from "../fixtures/test-fixture";
import { itOnMysqlFamily, openTestDatabase, type TestDatabase } from "../support/database";
import { regapi } from "./support/run-in-process";

// `regapi recount [--group]` rebuilds the per-project counters from the rows (after rows were
// written around the API, or to check them).

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
  await loadFixture(createRequestContext(db.state, "fixture"), testFixture());
});
afterAll(() => db.dispose());

const totalsOf = async (groupId: number) =>
  projectTotalsOf((await readProjectCounters(db.dataSource.manager, { projectId: groupId })).get(groupId)!);

const DEMO_TOTALS = { users: 3, activeUsers: 2, orderCents: 35000, paidCents: 10000 };

describe("regapi recount", () => {
  it("--group rebuilds one project's counters and leaves the others as they are", async () => {
    await db.dataSource.query(
      `UPDATE project_counter SET parent_active_registrations = parent_active_registrations + 40, parent_active_paid_cents = 7`,
    );
    const run = await regapi(["recount", "--group", String(MAPLE.groupId)], db.dataSource);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toMatch(new RegExp(`^recounted project ${MAPLE.groupId} in \\d+\\.\\d s\\n$`));
    expect(await totalsOf(MAPLE.groupId)).toEqual(DEMO_TOTALS);
    expect((await totalsOf(MAPLE.jazzGroupId)).users).toBe(41);
  });

  it("without --group rebuilds every project", async () => {
    const run = await regapi(["recount"], db.dataSource);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^recounted \d+ projects in \d+\.\d s\n$/);
    expect(await totalsOf(MAPLE.groupId)).toEqual(DEMO_TOTALS);
    expect(await totalsOf(MAPLE.jazzGroupId)).toEqual({ users: 1, activeUsers: 1, orderCents: 0, paidCents: 0 });
  });

  it("refuses a group that is not a positive integer", async () => {
    const run = await regapi(["recount", "--group", "x"], db.dataSource);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/expected an integer from 1/);
  });

  it("regapi seed keeps the counters exact chunk by chunk (a recount changes nothing)", async () => {
    const run = await regapi(
      ["seed", "--group", String(MAPLE.groupId), "--users", "250", "--batch", "100"],
      db.dataSource,
    );
    expect(run.code).toBe(0);
    expect((await totalsOf(MAPLE.groupId)).users).toBe(253);
    // Every bucket, as the seed computed it from its own rows, equals what the recount finds.
    const bucketsOf = async () =>
      (await readProjectCounters(db.dataSource.manager, { projectId: MAPLE.groupId })).get(MAPLE.groupId);
    const seeded = await bucketsOf();
    expect(Object.values(seeded!).every((bucket) => bucket.registrations > 0)).toBe(true);
    await regapi(["recount", "--group", String(MAPLE.groupId)], db.dataSource);
    expect(await bucketsOf()).toEqual(seeded);
  });

  itOnMysqlFamily("the migration backfills the counters of existing data with the recount's statements", async () => {
    await db.dataSource.query(`UPDATE project_counter SET parent_active_registrations = 999`);
    const expected = await (async () => {
      await regapi(["recount"], db.dataSource);
      return totalsOf(MAPLE.groupId);
    })();
    await db.dataSource.undoLastMigration({ transaction: "each" });
    await db.dataSource.runMigrations({ transaction: "each" });
    expect(await totalsOf(MAPLE.groupId)).toEqual(expected);
  });
});
