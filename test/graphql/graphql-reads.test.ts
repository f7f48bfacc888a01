import { loadUserSummaries } from "../../src/domain/users/user-summary";
import { presentMetaInfo as presentLegacyMetaInfo } from "../../src/rest/presenters/user-envelope";
import { formatUtcDateTime } from "../../src/common/dates";
import { MAPLE } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { graphqlData } from "../support/graphql";
import { uidOf } from "../support/rows";

// Issue 4 §2: the queries read the same data REST presents, typed and camelCased.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe("projects and project", () => {
  const ids = async (args: string) =>
    (await graphqlData<{ projects: { groupId: number }[] }>(t.app, `{ projects${args} { groupId } }`)).projects.map(
      (p) => p.groupId,
    );

  it("lists non-archived projects by default, adds archived ones withArchived, only them onlyArchived", async () => {
    expect(await ids("")).toEqual([MAPLE.groupId, MAPLE.jazzGroupId]);
    expect(await ids("(withArchived: true)")).toEqual([MAPLE.archivedGroupId, MAPLE.groupId, MAPLE.jazzGroupId]);
    expect(await ids("(onlyArchived: true)")).toEqual([MAPLE.archivedGroupId]);
    expect(await ids("(onlyArchived: true, withArchived: true)")).toEqual([MAPLE.archivedGroupId]);
  });

  it("reads a project with its totals (computed only when selected) and family flag", async () => {
    const { project } = await graphqlData<{ project: Record<string, unknown> }>(
      t.app,
      `query($g: Int!) { project(groupId: $g) { groupId name currency createdAt isArchived isFamilySystem
         groupTotals { totalUsers totalActiveUsers totalOrder totalPaid totalBalance } } }`,
      { g: MAPLE.groupId },
    );
    expect(project).toEqual({
      groupId: MAPLE.groupId,
      name: "Summer Camp 2027",
      currency: "USD",
      createdAt: "2026-01-05T10:00:00.000Z",
      isArchived: false,
      isFamilySystem: true,
      groupTotals: {
        totalUsers: 3,
        totalActiveUsers: 2,
        totalOrder: "350.00",
        totalPaid: "100.00",
        totalBalance: "250.00",
      },
    });
    const archived = await graphqlData<{ project: Record<string, unknown> }>(
      t.app,
      `{ project(groupId: ${MAPLE.archivedGroupId}) { isArchived isFamilySystem groupTotals { totalUsers } } }`,
    );
    expect(archived.project).toEqual({ isArchived: true, isFamilySystem: false, groupTotals: { totalUsers: 0 } });
  });

  const TOTALS = "groupTotals { totalUsers totalActiveUsers totalOrder totalPaid totalBalance }";

  it("reads one project directly, with the totals the list computes for it", async () => {
    const { projects } = await graphqlData<{ projects: { groupId: number }[] }>(
      t.app,
      `{ projects(withArchived: true) { groupId name isArchived ${TOTALS} } }`,
    );
    expect(projects).toHaveLength(3);
    for (const listed of projects) {
      const { project } = await graphqlData<{ project: unknown }>(
        t.app,
        `query($g: Int!) { project(groupId: $g) { groupId name isArchived ${TOTALS} } }`,
        { g: listed.groupId },
      );
      expect(project).toEqual(listed);
    }
  });

  it("projects and project(groupId) each read the organization's projects once, with no anchor project", async () => {
    const list = await t.countStatements(() => graphqlData(t.app, `{ projects { groupId ${TOTALS} } }`));
    const one = await t.countStatements(() =>
      graphqlData(t.app, `{ project(groupId: ${MAPLE.groupId}) { groupId ${TOTALS} } }`),
    );
    // Authentication, BEGIN, the list (or the owner check), three aggregates, COMMIT.
    expect(list.statements).toBeLessThanOrEqual(7);
    expect(one.statements).toBeLessThanOrEqual(7);
  });
});

describe("user", () => {
  const NESTED = `query($g: Int!, $c: Int!) { user(groupId: $g, cloginId: $c) {
      uid groupId cloginId parentCloginId name username mainEmail firstName lastName
      status { statusId name color isExcluded }
      forms { completed completedAt form { formId name mandatory audience level fields { identifier mappedName label type mandatory options } }
              missingMandatoryFields { identifier label } }
      fieldValues { field { identifier mappedName } text choices }
      tags { tagId name }
      parent { cloginId }
      children { cloginId parentCloginId parent { cloginId } }
      project { groupId name }
    } }`;

  it("reads a parent with forms, fields, values, missing mandatory fields, tags, children and project", async () => {
    const { user } = await graphqlData<{ user: Record<string, unknown> & { forms: Record<string, unknown>[] } }>(
      t.app,
      NESTED,
      { g: MAPLE.groupId, c: MAPLE.miles },
    );
    expect(user).toMatchObject({
      uid: await uidOf(t.dataSource, MAPLE.groupId, MAPLE.miles),
      groupId: MAPLE.groupId,
      cloginId: MAPLE.miles,
      parentCloginId: null,
      name: "Miles Davis",
      username: "miles@maple.test",
      mainEmail: "miles@maple.test",
      firstName: "Miles",
      lastName: "Davis",
      status: { statusId: 9, name: "Accepted", color: "#00AA00", isExcluded: false },
      fieldValues: [{ field: { identifier: "f_301_1", mappedName: "first_name" }, text: "Miles", choices: null }],
      tags: [{ tagId: 3, name: "VIP" }],
      parent: null,
      children: [{ cloginId: MAPLE.childKind, parentCloginId: MAPLE.miles, parent: { cloginId: MAPLE.miles } }],
      project: { groupId: MAPLE.groupId, name: "Summer Camp 2027" },
    });
    expect(user.forms.map((entry) => (entry.form as { formId: number }).formId)).toEqual([301, 303, 304]);
    expect(user.forms[0]).toEqual({
      completed: false,
      completedAt: null,
      form: {
        formId: 301,
        name: "Camper details",
        mandatory: true,
        audience: "USER",
        level: "ALL",
        fields: [
          {
            identifier: "f_301_1",
            mappedName: "first_name",
            label: "First name",
            type: "TEXT",
            mandatory: true,
            options: [],
          },
          {
            identifier: "f_301_2",
            mappedName: null,
            label: "Activities",
            type: "MULTIPLE_CHOICE",
            mandatory: false,
            options: ["Swimming", "<b>Archery</b>"],
          },
          {
            identifier: "f_301_3",
            mappedName: null,
            label: "T-shirt size",
            type: "SINGLE_CHOICE",
            mandatory: false,
            options: ["S", "M", "L"],
          },
        ],
      },
      missingMandatoryFields: [],
    });
    expect(user.forms[1]).toMatchObject({ form: { formId: 303, audience: "ADMIN" }, missingMandatoryFields: [] });
    expect(user.forms[2]).toMatchObject({
      form: { formId: 304, level: "PARENT" },
      missingMandatoryFields: [
        { identifier: "f_304_1", label: "Contact name" },
        { identifier: "f_304_2", label: "Contact phone" },
      ],
    });
  });

  it("gives meta info the same values as the legacy meta_info, typed", async () => {
    for (const cloginId of [MAPLE.miles, MAPLE.childKind, MAPLE.bill]) {
      const { user } = await graphqlData<{ user: { metaInfo: Record<string, unknown> } }>(
        t.app,
        `query($g: Int!, $c: Int!) { user(groupId: $g, cloginId: $c) { metaInfo {
           name totalForms completedForms totalUserForms totalCompletedUserForms totalUserMandatoryForms totalCompletedUserMandatoryForms
           totalOrder totalPaid totalBalance status { statusId name color } applicationDate commentCount groupId uid cloginId connectedTo
           excluded totalUserTags tagIds totalNonExcludedChildren star assignedAdmin { adminId initials color } } } }`,
        { g: MAPLE.groupId, c: cloginId },
      );
      const uid = await uidOf(t.dataSource, MAPLE.groupId, cloginId);
      const legacy = presentLegacyMetaInfo((await loadUserSummaries(t.dataSource.manager, [uid])).get(uid)!);
      const m = user.metaInfo as Record<string, never>;
      const status = m.status as { statusId: number; name: string; color: string } | null;
      const admin = m.assignedAdmin as { adminId: number; initials: string; color: string } | null;
      expect({
        u_name: m.name,
        total_forms: String(m.totalForms),
        completed_forms: String(m.completedForms),
        total_user_forms: String(m.totalUserForms),
        total_completed_user_forms: String(m.totalCompletedUserForms),
        total_user_mandatory_forms: String(m.totalUserMandatoryForms),
        total_completed_user_mandatory_forms: String(m.totalCompletedUserMandatoryForms),
        total_order: m.totalOrder,
        total_paid: m.totalPaid,
        total_balance: m.totalBalance,
        status_id: String(status?.statusId ?? 0),
        status_name: status?.name ?? null,
        status_color: status?.color ?? null,
        application_date: legacy.application_date,
        application_date_raw: formatUtcDateTime(new Date(m.applicationDate)),
        u_comments: String(m.commentCount),
        group_id: String(m.groupId),
        uid: String(m.uid),
        clogin_id: String(m.cloginId),
        excluded: m.excluded ? "1" : "0",
        connected_to: String(m.connectedTo),
        total_user_tags: String(m.totalUserTags),
        user_tag_ids: (m.tagIds as number[]).length ? (m.tagIds as number[]).join(",") : null,
        total_non_excluded_children: String(m.totalNonExcludedChildren),
        star: m.star ? "1" : "0",
        admin_initials: admin?.initials ?? null,
        admin_color: admin?.color ?? null,
        assigned_admin_id: admin ? String(admin.adminId) : null,
      }).toEqual(legacy);
    }
  });

  it("reads two users in one request (parallel root fields, each a domain call)", async () => {
    const data = await graphqlData<Record<string, { name: string }>>(
      t.app,
      `query($g: Int!) { a: user(groupId: $g, cloginId: ${MAPLE.miles}) { name } b: user(groupId: $g, cloginId: ${MAPLE.bill}) { name } c: project(groupId: $g) { name } }`,
      { g: MAPLE.groupId },
    );
    expect(data).toEqual({ a: { name: "Miles Davis" }, b: { name: "Bill Evans" }, c: { name: "Summer Camp 2027" } });
  });
});

describe("users connection", () => {
  interface Page {
    users: {
      totalCount: number;
      pageInfo: {
        hasNextPage: boolean;
        hasPreviousPage: boolean;
        startCursor: string | null;
        endCursor: string | null;
      };
      edges: { cursor: string; node: { cloginId: number } }[];
    };
  }
  const page = (args: string) =>
    graphqlData<Page>(
      t.app,
      `{ users(groupId: ${MAPLE.groupId}${args}) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { cloginId } } } }`,
    );
  const cloginIds = async (filter: string) =>
    (await page(`, filter: ${filter}`)).users.edges.map((edge) => edge.node.cloginId);

  it("walks every user once, in uid order, with opaque cursors", async () => {
    const expected = [];
    for (const cloginId of [MAPLE.miles, MAPLE.childKind, MAPLE.bill])
      expected.push({ uid: await uidOf(t.dataSource, MAPLE.groupId, cloginId), cloginId });
    expected.sort((a, b) => a.uid - b.uid);

    const seen: number[] = [];
    let after: string | null = null;
    for (let pageNumber = 0; pageNumber < 5; pageNumber += 1) {
      const { users } = await page(`, first: 1${after ? `, after: "${after}"` : ""}`);
      expect(users.totalCount).toBe(3);
      expect(users.pageInfo.hasPreviousPage).toBe(after !== null);
      expect(users.edges).toHaveLength(1);
      expect(users.pageInfo.startCursor).toBe(users.edges[0].cursor);
      expect(users.pageInfo.endCursor).toBe(users.edges[0].cursor);
      seen.push(users.edges[0].node.cloginId);
      after = users.pageInfo.endCursor;
      if (!users.pageInfo.hasNextPage) break;
    }
    expect(seen).toEqual(expected.map((entry) => entry.cloginId));

    const past = await page(`, after: "${after}"`);
    expect(past.users).toMatchObject({
      totalCount: 3,
      edges: [],
      pageInfo: { hasNextPage: false, startCursor: null, endCursor: null },
    });
  });

  it("filters by level, exclusion, status and a name or email part", async () => {
    expect(await cloginIds("{ level: CHILD }")).toEqual([MAPLE.childKind]);
    expect((await cloginIds("{ level: PARENT }")).sort()).toEqual([MAPLE.miles, MAPLE.bill].sort());
    expect(await cloginIds("{ excluded: true }")).toEqual([MAPLE.bill]);
    expect((await cloginIds("{ excluded: false }")).sort()).toEqual([MAPLE.miles, MAPLE.childKind].sort());
    expect(await cloginIds("{ statusId: 9 }")).toEqual([MAPLE.miles]);
    expect(await cloginIds("{ statusId: 0 }")).toEqual([MAPLE.childKind]);
    expect(await cloginIds('{ search: "EVANS" }')).toEqual([MAPLE.bill]);
    expect(await cloginIds('{ search: "kind-of" }')).toEqual([MAPLE.childKind]);
    expect(await cloginIds('{ search: "milestone" }')).toEqual([]);
    expect(await cloginIds('{ search: "davis", level: PARENT }')).toEqual([MAPLE.miles]);
    expect((await page(', filter: { search: "davis" }')).users.totalCount).toBe(2);
  });
});
