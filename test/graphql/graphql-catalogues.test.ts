import { UID_ORDER } from "../../src/domain/users/user-reads";
import { encodeTagCursor, encodeUserCursor } from "../../src/graphql/cursor";
import { encodeNodeId } from "../../src/graphql/nodes/node-id";
import { MAPLE, OTHER } from "../fixtures/test-fixture";
import { graphql } from "../support/graphql";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 24 for admin UIs: lookups that fail alone, and a project's catalogues (statuses, forms
// with fields and choices, tags) with Node ids that refetch the same objects.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe("lookups fail alone (nullable user, project, me, User.project)", () => {
  it("a user that is not registered is null with its error; the projects next to it keep their data", async () => {
    const res = await graphql(t.app, `{ projects { groupId } user(groupId: ${MAPLE.groupId}, cloginId: 1) { name } }`);
    expect(res.status).toBe(200);
    expect(res.data?.user).toBeNull();
    expect((res.data?.projects as { groupId: number }[]).map((project) => project.groupId)).toContain(MAPLE.groupId);
    // The code and message of before: only where the null lands changed.
    expect(res.errors).toEqual([
      expect.objectContaining({
        message: `User 1 is not registered in project ${MAPLE.groupId}.`,
        path: ["user"],
        extensions: { code: "USER_NOT_FOUND" },
      }),
    ]);
  });

  it("a project of another organization is null with FORBIDDEN next to a user that answers", async () => {
    const res = await graphql(
      t.app,
      `{ project(groupId: ${OTHER.groupId}) { name } user(groupId: ${MAPLE.groupId}, cloginId: ${MAPLE.miles}) { cloginId project { groupId name currency } } }`,
    );
    expect(res.data).toEqual({
      project: null,
      user: { cloginId: MAPLE.miles, project: { groupId: MAPLE.groupId, name: "Summer Camp 2027", currency: "USD" } },
    });
    expect(res.errors).toEqual([
      expect.objectContaining({
        message: `group_id ${OTHER.groupId} is not a project of your organization`,
        path: ["project"],
        extensions: { code: "FORBIDDEN" },
      }),
    ]);
  });

  it("me for an API account is null with FORBIDDEN, and the query's other fields answer", async () => {
    const res = await graphql(t.app, `{ me { name } project(groupId: ${MAPLE.groupId}) { name } }`);
    expect(res.data).toEqual({ me: null, project: { name: "Summer Camp 2027" } });
    expect(res.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([[["me"], "FORBIDDEN"]]);
  });
});

const CATALOGUES = `query($g: Int!) {
  project(groupId: $g) {
    statuses { id statusId name color isExcluded }
    forms { id formId name mandatory audience level fields { id identifier label type options choices { value label labelHtml } } }
    tags(first: 1) { edges { cursor node { id tagId name } } nodes { tagId } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
  }
}`;

interface Catalogues {
  project: {
    statuses: { id: string; statusId: number }[];
    forms: {
      id: string;
      formId: number;
      fields: { id: string; identifier: string; options: string[]; choices: unknown[] }[];
    }[];
    tags: {
      edges: { cursor: string; node: { id: string; tagId: number; name: string } }[];
      nodes: { tagId: number }[];
      pageInfo: {
        hasNextPage: boolean;
        hasPreviousPage: boolean;
        startCursor: string | null;
        endCursor: string | null;
      };
    };
  };
}

describe("project catalogues for admin UIs", () => {
  it("statuses in creation order, with their Node ids", async () => {
    const res = await graphql<Catalogues>(t.app, CATALOGUES, { g: MAPLE.groupId });
    expect(res.errors).toBeUndefined();
    expect(res.data?.project.statuses).toEqual([
      {
        id: encodeNodeId("Status", { groupId: MAPLE.groupId, statusId: 9 }),
        statusId: 9,
        name: "Accepted",
        color: "#00AA00",
        isExcluded: false,
      },
      {
        id: encodeNodeId("Status", { groupId: MAPLE.groupId, statusId: 10 }),
        statusId: 10,
        name: "Withdrawn",
        color: "#888888",
        isExcluded: true,
      },
    ]);
  });

  it("every form of the project (admin-only ones too) with its fields and their choices", async () => {
    const res = await graphql<Catalogues>(t.app, CATALOGUES, { g: MAPLE.groupId });
    const forms = res.data!.project.forms;
    expect(forms.map((form) => [form.formId, (form as unknown as { audience: string }).audience])).toEqual([
      [301, "USER"],
      [302, "USER"],
      [303, "ADMIN"],
      [304, "USER"],
    ]);
    const activities = forms[0].fields.find((field) => field.identifier === "f_301_2")!;
    // options keep the stored values; choices add the plain-text label.
    expect(activities.options).toEqual(["Swimming", "<b>Archery</b>"]);
    expect(activities.choices).toEqual([
      { value: "Swimming", label: "Swimming", labelHtml: "Swimming" },
      { value: "<b>Archery</b>", label: "Archery", labelHtml: "<b>Archery</b>" },
    ]);
    expect(forms[0].fields.find((field) => field.identifier === "f_301_1")!.choices).toEqual([]);
  });

  it("tags page forward with first/after; a cursor of another list is refused", async () => {
    const first = await graphql<Catalogues>(t.app, CATALOGUES, { g: MAPLE.groupId });
    const page = first.data!.project.tags;
    expect(page.edges.map((edge) => edge.node)).toEqual([
      { id: encodeNodeId("Tag", { groupId: MAPLE.groupId, tagId: 3 }), tagId: 3, name: "VIP" },
    ]);
    expect(page.nodes).toEqual([{ tagId: 3 }]);
    expect(page.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: page.edges[0].cursor,
      endCursor: page.edges[0].cursor,
    });
    const nextQuery = `query($g: Int!, $after: String) { project(groupId: $g) { tags(first: 5, after: $after) { nodes { tagId name } pageInfo { hasNextPage hasPreviousPage } } } }`;
    const next = await graphql(t.app, nextQuery, { g: MAPLE.groupId, after: page.pageInfo.endCursor });
    expect(next.data).toEqual({
      project: {
        tags: { nodes: [{ tagId: 4, name: "Scholarship" }], pageInfo: { hasNextPage: false, hasPreviousPage: true } },
      },
    });
    const past = await graphql(t.app, nextQuery, { g: MAPLE.groupId, after: encodeTagCursor(4) });
    expect(past.data).toEqual({
      project: { tags: { nodes: [], pageInfo: { hasNextPage: false, hasPreviousPage: true } } },
    });

    const wrong = await graphql(t.app, nextQuery, { g: MAPLE.groupId, after: encodeUserCursor(UID_ORDER, { uid: 3 }) });
    expect(wrong.errors?.map((error) => [error.extensions?.code, error.message])).toEqual([
      ["BAD_USER_INPUT", "after is not a cursor returned by this API."],
    ]);
    expect(wrong.data).toEqual({ project: { tags: null } });
    const tooMany = await graphql(
      t.app,
      `{ project(groupId: ${MAPLE.groupId}) { tags(first: 101) { nodes { tagId } } } }`,
    );
    expect(tooMany.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });

  it("each status, form, field and tag refetches by its Node id as the same object", async () => {
    const res = await graphql<Catalogues>(t.app, CATALOGUES, { g: MAPLE.groupId });
    const project = res.data!.project;
    const fieldsOf301 = project.forms[0].fields;
    const ids = [
      ...project.statuses.map((status) => status.id),
      ...project.forms.map((form) => form.id),
      ...fieldsOf301.map((field) => field.id),
      project.tags.edges[0].node.id,
    ];
    const refetched = await graphql<{ nodes: { id: string }[] }>(
      t.app,
      `
        query ($ids: [ID!]!) {
          nodes(ids: $ids) {
            id
            ... on Status {
              statusId
              name
              color
              isExcluded
            }
            ... on Form {
              formId
              name
              mandatory
              audience
              level
            }
            ... on FormField {
              identifier
              label
              type
              options
              choices {
                value
                label
                labelHtml
              }
            }
            ... on Tag {
              tagId
              name
            }
          }
        }
      `,
      { ids },
    );
    expect(refetched.errors).toBeUndefined();
    const strip = <T extends object>(value: T) =>
      Object.fromEntries(Object.entries(value).filter(([key]) => key !== "fields"));
    expect(refetched.data!.nodes).toEqual([
      ...project.statuses,
      ...project.forms.map(strip),
      ...fieldsOf301.map(({ identifier, ...rest }) => ({ identifier, ...rest })),
      project.tags.edges[0].node,
    ]);
  });

  it("the catalogue query of docs/graphql-clients.md answers without an error", async () => {
    const res = await graphql(
      t.app,
      `
        query Catalogues($g: Int!, $after: String) {
          project(groupId: $g) {
            statuses {
              id
              statusId
              name
              color
              isExcluded
            }
            forms {
              id
              formId
              name
              mandatory
              audience
              level
              fields {
                id
                identifier
                mappedName
                label
                type
                mandatory
                options
                choices {
                  value
                  label
                  labelHtml
                }
              }
            }
            tags(first: 50, after: $after) {
              edges {
                cursor
                node {
                  id
                  tagId
                  name
                }
              }
              nodes {
                id
                tagId
                name
              }
              pageInfo {
                hasNextPage
                endCursor
              }
            }
          }
        }
      `,
      { g: MAPLE.groupId, after: null },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data).toMatchObject({
      project: { tags: { nodes: [{ tagId: 3 }, { tagId: 4 }], pageInfo: { hasNextPage: false } } },
    });
  });

  it("another organization's account gets the project null with FORBIDDEN, no catalogue", async () => {
    const res = await graphql(
      t.app,
      CATALOGUES,
      { g: MAPLE.groupId },
      {
        "Api-Id": OTHER.apiId,
        "Api-User": OTHER.apiUser,
        "Api-Token": OTHER.apiToken,
      },
    );
    expect(res.data).toEqual({ project: null });
    expect(res.errors?.map((error) => error.extensions?.code)).toEqual(["FORBIDDEN"]);
  });
});
