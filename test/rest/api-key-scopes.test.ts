import { ApiAccount } from "../../src/entities";
import { ENDPOINT_DOCS } from "../../src/rest/openapi/action-docs";
import { hashApiToken } from "../../src/auth/secrets";
import { MAPLE, mapleHeaders } from "../fixtures/test-fixture";
import { outputFields, regapi } from "../cli/support/run-in-process";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// Scoped API keys (issue 25, item 4): made with the CLI, used through HTTP on both transports.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

type Headers = Record<string, string>;

async function newKey(user: string, ...limits: string[]): Promise<Headers> {
  const run = await regapi(["api-key", "create", "--org", "1", "--user", user, ...limits], t.state);
  expect(run).toMatchObject({ code: 0 });
  const fields = outputFields(run.stdout);
  return { "Api-Id": fields["Api-Id"], "Api-User": fields["Api-User"], "Api-Token": fields["Api-Token"] };
}

const userList = (headers: Headers, groupId: number) =>
  postRest(t.app, "users", { action: "get_user_list", group_id: groupId, doc: {} }, headers);
const update = (headers: Headers) =>
  postRest(
    t.app,
    "users",
    { action: "update", group_id: MAPLE.groupId, clogin_id: MAPLE.miles, doc: { f_301_3: "M" } },
    headers,
  );
const USERS = `query($groupId: Int!) { users(groupId: $groupId, first: 1) { totalCount } }`;
const UPDATE = `mutation($cloginId: Int!, $groupId: Int!) {
  updateUser(input: { groupId: $groupId, cloginId: $cloginId, values: { f_301_3: "L" } }) { user { cloginId } }
}`;
const VIEWER = `{ viewer { apiId apiUser organizationId fullAccess scopes groupIds } }`;

describe("a key limited to one project and to reads", () => {
  let key: Headers;
  beforeAll(async () => {
    key = await newKey("reporting@maple.test", "--groups", String(MAPLE.groupId), "--scope", "read");
  });

  it("reads its project through REST and GraphQL", async () => {
    expect((await userList(key, MAPLE.groupId)).status).toBe(200);
    const answer = await graphql(t.app, USERS, { groupId: MAPLE.groupId }, key);
    expect(answer.errors).toBeUndefined();
  });

  it("is refused another project of its organization with the same 403 FORBIDDEN on both transports", async () => {
    const message = `This API key lacks the scope of group_id ${MAPLE.jazzGroupId} (it is limited to group_id ${MAPLE.groupId}).`;
    const rest = await userList(key, MAPLE.jazzGroupId);
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ success: false, error_code: "FORBIDDEN", msg: message });
    const gql = await graphql(t.app, USERS, { groupId: MAPLE.jazzGroupId }, key);
    expect(gql.errors?.[0]).toMatchObject({ message, extensions: { code: "FORBIDDEN" } });
  });

  it("is refused a write, named by its scope, the same on both transports, and nothing is written", async () => {
    const message = 'This API key lacks the scope "users.update" (its scope: read).';
    const before = await t.dataSource.query("SELECT COUNT(*) AS n FROM field_value WHERE field_id = 'f_301_3'");
    const rest = await update(key);
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ error_code: "FORBIDDEN", msg: message });
    const gql = await graphql(t.app, UPDATE, { groupId: MAPLE.groupId, cloginId: MAPLE.miles }, key);
    expect(gql.errors?.[0]).toMatchObject({ message, extensions: { code: "FORBIDDEN" } });
    expect(await t.dataSource.query("SELECT COUNT(*) AS n FROM field_value WHERE field_id = 'f_301_3'")).toEqual(
      before,
    );
  });

  it("lists only its project in get_project_list and projects", async () => {
    const rest = await postRest(
      t.app,
      "projects",
      { action: "get_project_list", group_id: MAPLE.groupId, doc: {} },
      key,
    );
    expect(rest.status).toBe(200);
    expect((rest.body.projects as { group_id: string }[]).map((project) => project.group_id)).toEqual([
      String(MAPLE.groupId),
    ]);
    const gql = await graphql<{ projects: { groupId: number }[] }>(
      t.app,
      `
        {
          projects {
            groupId
          }
        }
      `,
      {},
      key,
    );
    expect(gql.data?.projects).toEqual([{ groupId: MAPLE.groupId }]);
  });

  it("cannot act organization-wide (webhook endpoints belong to every project)", async () => {
    const gql = await graphql(
      t.app,
      `
        {
          webhookEndpoints {
            endpointId
          }
        }
      `,
      {},
      key,
    );
    expect(gql.errors?.[0]).toMatchObject({
      message: `This API key lacks the organization-wide scope "read" needs (it is limited to group_id ${MAPLE.groupId}).`,
      extensions: { code: "FORBIDDEN" },
    });
  });

  it("sees its own scope through GraphQL viewer and REST account whoami", async () => {
    const gql = await graphql(t.app, VIEWER, {}, key);
    expect(gql.data).toEqual({
      viewer: {
        apiId: Number(key["Api-Id"]),
        apiUser: "reporting@maple.test",
        organizationId: 1,
        fullAccess: false,
        scopes: ["read"],
        groupIds: [MAPLE.groupId],
      },
    });
    const rest = await postRest(t.app, "account", { action: "whoami", group_id: MAPLE.groupId }, key);
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual({
      success: true,
      api_id: Number(key["Api-Id"]),
      api_user: "reporting@maple.test",
      organization_id: 1,
      full_access: false,
      scopes: ["read"],
      group_ids: [MAPLE.groupId],
    });
  });
});

describe("a key limited to named writes", () => {
  it("may do what it names and nothing else, reads included", async () => {
    const key = await newKey("updater@maple.test", "--scope", "users.update");
    expect((await update(key)).status).toBe(200);
    const rest = await userList(key, MAPLE.groupId);
    expect(rest.status).toBe(403);
    expect(rest.body.msg).toBe('This API key lacks the scope "read" (its scope: users.update).');
    const both = await newKey("reader-updater@maple.test", "--scope", "read,users.update");
    expect((await userList(both, MAPLE.groupId)).status).toBe(200);
    expect((await update(both)).status).toBe(200);
  });
});

describe("every REST action checks the scope", () => {
  it("a key scoped to another project and one unrelated write is refused every documented example but whoami", async () => {
    const key = await newKey(
      "nothing-here@maple.test",
      "--groups",
      String(MAPLE.jazzGroupId),
      "--scope",
      "users.login",
    );
    const refused: string[] = [];
    const answered: string[] = [];
    for (const [endpoint, docs] of Object.entries(ENDPOINT_DOCS)) {
      for (const [action, doc] of Object.entries(docs.actions)) {
        const response = await postRest(t.app, `/reg/api2/${endpoint}/`, doc.example, key);
        const name = `${endpoint} ${action}`;
        if (response.status === 403 && /^This API key lacks the scope /.test(String(response.body.msg)))
          refused.push(name);
        else answered.push(`${name}: ${response.status} ${String(response.body.msg)}`);
      }
    }
    expect(answered).toEqual([expect.stringMatching(/^account whoami: 200 /)]);
    expect(refused.length).toBeGreaterThanOrEqual(14);
  });
});

describe("keys made before scopes", () => {
  it("keep full access and say so", async () => {
    const gql = await graphql(t.app, VIEWER, {}, mapleHeaders);
    expect(gql.data).toMatchObject({ viewer: { fullAccess: true, scopes: null, groupIds: null } });
    const rest = await postRest(t.app, "account", { action: "whoami", group_id: MAPLE.groupId });
    expect(rest.body).toMatchObject({ full_access: true, scopes: "all", group_ids: "all" });
    expect((await userList(mapleHeaders, MAPLE.jazzGroupId)).status).toBe(200);
    expect((await update(mapleHeaders)).status).toBe(200);
  });
});

describe("regapi api-key create and list with a scope", () => {
  it("prints and lists the scope; the token is stored only as a hash", async () => {
    const run = await regapi(
      [
        "api-key",
        "create",
        "--org",
        "1",
        "--user",
        "listed@maple.test",
        "--groups",
        `${MAPLE.groupId}`,
        "--scope",
        "read",
      ],
      t.state,
    );
    const printed = outputFields(run.stdout);
    expect(printed).toMatchObject({ Scope: "read", Groups: String(MAPLE.groupId) });
    const stored = await t.dataSource.manager.findOneByOrFail(ApiAccount, { id: Number(printed["Api-Id"]) });
    expect(stored).toMatchObject({ tokenHash: hashApiToken(printed["Api-Token"]), scopeOperations: "read" });
    const list = await regapi(["api-key", "list", "--org", "1"], t.state);
    const line = list.stdout.split("\n").find((row) => row.startsWith(`${printed["Api-Id"]} `));
    expect(line).toMatch(new RegExp(`listed@maple\\.test\\s+yes\\s+\\S+\\s+-\\s+read\\s+${MAPLE.groupId}$`));
    expect(list.stdout).not.toContain(printed["Api-Token"]);
  });

  it("refuses unknown scope names and another organization's projects, creating nothing", async () => {
    const count = () => t.dataSource.manager.count(ApiAccount);
    const before = await count();
    const unknown = await regapi(
      ["api-key", "create", "--org", "1", "--user", "x@maple.test", "--scope", "read,delete_everything"],
      t.state,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("--scope names unknown scopes (delete_everything)");
    const foreign = await regapi(
      ["api-key", "create", "--org", "1", "--user", "x@maple.test", "--groups", "200000001"],
      t.state,
    );
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain("--groups names projects that are not organization 1's: 200000001");
    expect(await count()).toBe(before);
  });
});
