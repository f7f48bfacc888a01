import type { EntityManager } from "typeorm";
import { seedRegistrants } from "../../src/cli/seed/seed-registrants";
import { readSummaryPageInRange } from "../../src/data/user-page.data";
import { summaryMembers } from "../../src/data/user-projection";
import { readSummaries as readSummaryRows } from "../../src/data/user-summary.data";
import { analyzeBulkTables } from "../../src/data/table-statistics.data";
import { createRequestContext } from "../../src/domain/context";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { MAPLE, testFixture } from "../fixtures/test-fixture";
import { describeOnMysqlFamily, openTestDatabase, type TestDatabase } from "../support/database";

// Issue 12: right after a bulk seed MariaDB planned the meta_info statement's children count
// (non_excluded_children) through the (project_id, person_id) index and walked the whole project
// for every user, until it refreshed its statistics. The children index (project_id,
// connected_to, status_id) makes the plan not depend on statistics; this test EXPLAINs the
// statement as the server sends it, on statistics taken when the project was nearly empty and
// again after ANALYZE, and fails when any table of it is read by scanning the project.

const SEEDED = 3_000;

let db: TestDatabase;

/** The statements a read sends, recorded from the manager it is given. */
function recording(em: EntityManager, sent: { sql: string; parameters: unknown[] }[]): EntityManager {
  return new Proxy(em, {
    get(target, property, receiver) {
      if (property !== "query") return Reflect.get(target, property, receiver);
      return async (sql: string, parameters: unknown[] = []) => {
        sent.push({ sql, parameters });
        return target.query(sql, parameters);
      };
    },
  });
}

interface PlanRow {
  table: string | null;
  Extra?: string | null;
  type: string | null;
  key: string | null;
  ref: string | null;
  rows: number | string | null;
}

/** Tables of the project's setup (a handful of forms): a scan of them does not grow with registrations. */
const SETUP_TABLES = new Set(["f"]);

async function explainMetaInfo(uids: number[]): Promise<PlanRow[]> {
  const sent: { sql: string; parameters: unknown[] }[] = [];
  await readSummaryRows(recording(db.dataSource.manager, sent), uids);
  const summary = sent.find((statement) => statement.sql.includes("non_excluded_children"));
  if (!summary) throw new Error("the summary statement was not sent");
  return db.dataSource.query(`EXPLAIN ${summary.sql}`, summary.parameters);
}

function expectNoProjectScan(plan: PlanRow[]): void {
  const described = plan.map(
    (row) => `${row.table}: ${row.type} via ${row.key ?? "no index"} (${row.ref ?? "-"}), ~${row.rows} rows`,
  );
  for (const row of plan) {
    if (row.table === null || SETUP_TABLES.has(row.table)) continue;
    // The 50 users are a range of the primary key; every other table is sought per user (its
    // `ref` names a column of the user's row, or of a row sought per user: a tag by its link's
    // tag_id, since the tags are read with the summary). Row estimates are not checked: on stale
    // statistics they are guesses, while the access path is what the statement will do.
    const access =
      row.table === "r"
        ? row.type === "range" && row.key === "PRIMARY"
        : /^(eq_ref|ref)$/.test(row.type ?? "") && /\b(r|ch|rt)\./.test(row.ref ?? "");
    if (!access) throw new Error(`${row.table} is not sought per user:\n${described.join("\n")}`);
  }
  // The children are sought by (project, parent): both columns of the join bound the index seek.
  const children = plan.find((row) => row.table === "ch");
  expect({ ref: children?.ref ?? "", described }).toMatchObject({
    ref: expect.stringMatching(/r\.project_id.*r\.person_id/),
  });
}

/** The plan of a GraphQL users page statement (first page, or after a cursor), as the server sends it. */
async function explainUsersPage(afterUid: number | null): Promise<PlanRow[]> {
  const sent: { sql: string; parameters: unknown[] }[] = [];
  const organizationId = Number(
    (await db.dataSource.query(`SELECT organization_id FROM project WHERE id = ?`, [MAPLE.groupId]))[0].organization_id,
  );
  await readSummaryPageInRange(
    recording(db.dataSource.manager, sent),
    organizationId,
    MAPLE.groupId,
    {},
    { after: afterUid === null ? null : { uid: afterUid }, before: null, limit: 51, fromEnd: false },
    // The bench's page: metaInfo { totalForms totalOrder }.
    summaryMembers(["totalForms", "totalOrderCents"]),
    ["parent_active"],
  );
  const [page] = sent;
  return db.dataSource.query(`EXPLAIN ${page.sql}`, page.parameters);
}

function expectPageOffItsIndex(plan: PlanRow[]): void {
  const described = plan.map((row) => `${row.table}: ${row.type} via ${row.key ?? "no index"}, ${row.Extra ?? ""}`);
  // The page's registrations come off (project_id, uid) in order: neither a walk of the primary
  // key through other projects' rows nor a sort of the whole project.
  const registrations = plan.find((row) => row.table === "r");
  expect({ key: registrations?.key, described }).toMatchObject({ key: "IDX_registration_project_uid" });
  expect(described.join("\n")).not.toMatch(/filesort/);
}

describeOnMysqlFamily("query plans that do not depend on statistics (MariaDB/MySQL)", () => {
  let uids: number[];
  beforeAll(async () => {
    db = await openTestDatabase();
    await loadFixture(createRequestContext(db.state, "fixture"), testFixture());
    // Statistics taken while the project holds 3 registrations, then a bulk seed without ANALYZE.
    await analyzeBulkTables(db.dataSource.manager);
    await seedRegistrants(db.state, { groupId: MAPLE.groupId, users: SEEDED, batchSize: 1_000 });
    const rows: { uid: number }[] = await db.dataSource.query(
      `SELECT uid FROM registration WHERE project_id = ? AND connected_to IS NULL ORDER BY uid DESC LIMIT 50`,
      [MAPLE.groupId],
    );
    uids = rows.map((row) => Number(row.uid));
  }, 120_000);
  afterAll(() => db.dispose());

  it("the meta_info statement of 50 users reads their families, not the project, on stale statistics", async () => {
    expectNoProjectScan(await explainMetaInfo(uids));
  });

  it("a users page reads its rows off the (project_id, uid) index, on stale statistics", async () => {
    expectPageOffItsIndex(await explainUsersPage(null));
    expectPageOffItsIndex(await explainUsersPage(uids[uids.length - 1]));
  });

  it("and after ANALYZE TABLE (as regapi seed and regapi load end)", async () => {
    expect(await analyzeBulkTables(db.dataSource.manager)).toBe(true);
    expectNoProjectScan(await explainMetaInfo(uids));
    expectPageOffItsIndex(await explainUsersPage(null));
    expectPageOffItsIndex(await explainUsersPage(uids[uids.length - 1]));
  });
});
