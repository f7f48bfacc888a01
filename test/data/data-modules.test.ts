import type { EntityManager } from "typeorm";
import { readProjectCounters } from "../../src/data/project-counters.data";
import { projectTotalsOf } from "../../src/domain/projects/project-counters";
import { readOwnedSummary, readSummaries as readSummaryRows } from "../../src/data/user-summary.data";
import { readSummaryPageInRange } from "../../src/data/user-page.data";
import { summaryMembers, USER_PROJECTION, type SummaryMembers } from "../../src/data/user-projection";
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

/** The organization owning a project, as the database holds it. */
const organizationOf = async (groupId: number) =>
  Number(
    (
      (await t.dataSource.query(`SELECT organization_id FROM project WHERE id = ?`, [groupId])) as {
        organization_id: unknown;
      }[]
    )[0].organization_id,
  );

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

describe("a summary read decodes only the members asked for (issue 23)", () => {
  const page = async (members: SummaryMembers | null) => {
    const read = await readSummaryPageInRange(
      t.dataSource.manager,
      await organizationOf(MAPLE.groupId),
      MAPLE.groupId,
      {},
      { after: null, before: null, limit: 50, fromEnd: false },
      members,
    );
    expect(read.owned).toBe(true);
    return read.rows as unknown as Record<string, unknown>[];
  };
  const IDENTITY = ["uid", "groupId", "cloginId", "parentCloginId"];

  it("every member, read alone, holds what a full read holds, beside the identity and nothing else", async () => {
    const full = await page(null);
    expect(full.length).toBeGreaterThan(1);
    // Miles has cart lines and payments: members read as 0 would not pass for members read right.
    expect(full.find((row) => row.cloginId === MAPLE.miles)).toMatchObject({
      totalOrderCents: 35000,
      totalPaidCents: 10000,
    });
    for (const name of Object.keys(USER_PROJECTION)) {
      const rows = await page(summaryMembers([name]));
      const expected = full.map((row) => Object.fromEntries([...new Set([...IDENTITY, name])].map((m) => [m, row[m]])));
      // Same keys (nothing else decoded), same values (the member's declared parts suffice).
      expect({ name, rows }).toEqual({ name, rows: expected });
    }
  });

  it("a full read holds every member, in the projection's order", async () => {
    const [row] = await page(null);
    expect(Object.keys(row)).toEqual(Object.keys(USER_PROJECTION));
  });

  it("the six form counts read from one column, digits or not", () => {
    const counts = [
      USER_PROJECTION.totalForms,
      USER_PROJECTION.completedForms,
      USER_PROJECTION.totalUserForms,
      USER_PROJECTION.totalCompletedUserForms,
      USER_PROJECTION.totalUserMandatoryForms,
      USER_PROJECTION.totalCompletedUserMandatoryForms,
    ];
    expect(counts.map((member) => member.decode({ form_counts: "12,3,0,45,6,107" }))).toEqual([12, 3, 0, 45, 6, 107]);
    // The first count alone (COUNT(*) without the form join), as a number or as text.
    expect(counts.map((member) => member.decode({ form_counts: 7 }))).toEqual([7, 0, 0, 0, 0, 0]);
    expect(counts.map((member) => member.decode({ form_counts: "7" }))).toEqual([7, 0, 0, 0, 0, 0]);
    expect(counts.map((member) => member.decode({ form_counts: null }))).toEqual([0, 0, 0, 0, 0, 0]);
    // Not digits: as Number() reads it.
    expect(USER_PROJECTION.completedForms.decode({ form_counts: "1, 2,x" })).toBe(2);
    expect(USER_PROJECTION.totalUserForms.decode({ form_counts: "1, 2,x" })).toBeNaN();
  });
});

describe("the owned read with its lists (one statement, the lists as arms of it)", () => {
  const everyList = { formSet: "family", formFields: "family", answers: "family", emails: "family" } as const;
  it("reads the family's summaries, tags included, as the summary read does, and the lists for each", async () => {
    const organizationId = await organizationOf(MAPLE.groupId);
    const read = await readOwnedSummary(t.dataSource.manager, organizationId, MAPLE.groupId, MAPLE.miles, {
      withChildren: true,
      lists: everyList,
    });
    expect(read.owned).toBe(true);
    const family = [read.summary!, ...read.children];
    expect(family.map((summary) => summary.uid)).toEqual(
      [...family.map((summary) => summary.uid)].sort((a, b) => a - b),
    );
    // The tags come from an arm here and from a JSON column in readSummaries: the same summaries.
    expect(family).toEqual(
      await readSummaryRows(
        t.dataSource.manager,
        family.map((summary) => summary.uid),
      ),
    );
    for (const summary of family) {
      const lists = read.lists.get(summary.uid)!;
      expect(lists.formSet!.length).toBe(summary.totalForms);
      expect(Object.keys(lists).sort()).toEqual(["answers", "emails", "formFields", "formSet"]);
    }
  });

  it("reads nothing of a project of another organization, although the arms would find its rows", async () => {
    const read = await readOwnedSummary(
      t.dataSource.manager,
      (await organizationOf(MAPLE.groupId)) + 1,
      MAPLE.groupId,
      MAPLE.miles,
      {
        withChildren: true,
        lists: everyList,
      },
    );
    expect(read).toEqual({ owned: false, summary: null, children: [], lists: new Map() });
  });
});
