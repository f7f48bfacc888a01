import request from "supertest";
import { graphql } from "../graphql/graphql-client";
import { LAB, labFixture } from "../fixtures/lab-fixture";
import { postRest } from "../support/rest";
import { MAPLE, OTHER } from "../fixtures/test-fixture";
import { startTestApp, type TestApp } from "../support/test-app";
import { encodeNodeId } from "../../src/graphql/nodes/node-id";

// Contract §10: users login → POST /reg/api2/session/ → Authorization: Bearer on /graphql, a
// registrant principal that reaches only its own registration.

// The Lab project with what a registrant must not see of it: a private product (one cart's),
// statuses and tags (the organization's own catalogues).
const PRIVATE_PRODUCT = 83;
function portalFixture(): unknown {
  const fixture = labFixture() as { organizations: { projects: Record<string, unknown>[] }[] };
  const lab = fixture.organizations[0].projects.find((project) => project.id === LAB.groupId)!;
  (lab.products as unknown[]).push(
    { id: PRIVATE_PRODUCT, name: "Staff kit", price: "1.00", private: true },
    { id: 84, name: "Parents' dinner", price: "20.00", level: "parent" },
    { id: 85, name: "Kids' camp", price: "30.00", level: "child" },
    { id: 86, name: "Last year's trip", price: "9.00", endDate: "2020-01-01" },
  );
  const family = fixture.organizations[0].projects.find((project) => project.id === LAB.familyGroupId)!;
  family.products = [
    { id: 87, name: "Family pass", price: "40.00", level: "parent" },
    { id: 88, name: "Junior pass", price: "15.00", level: "child" },
  ];
  lab.statuses = [{ id: 95, name: "Waitlist", color: "#AA0000" }];
  lab.tags = [{ id: 96, name: "Needs follow-up" }];
  return fixture;
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fixture: portalFixture() });
});
afterAll(() => t.close());

const login = (cloginId: number, groupId: number = LAB.groupId, extra: Record<string, unknown> = {}) =>
  postRest(t.app, "users", { action: "login", group_id: groupId, clogin_id: cloginId, doc: {}, ...extra });

const redeem = (body: unknown) =>
  request(t.app)
    .post("/reg/api2/session/")
    .set("Content-Type", "application/json")
    .send(body as object);

async function sessionOf(cloginId: number, groupId: number = LAB.groupId): Promise<string> {
  const loggedIn = await login(cloginId, groupId);
  expect(loggedIn.status).toBe(200);
  const redeemed = await redeem({ user_token: loggedIn.body.user_token });
  expect(redeemed.status).toBe(200);
  return redeemed.body.session_token as string;
}

const asRegistrant = (token: string, query: string, variables: Record<string, unknown> = {}) =>
  graphql(t.app, query, variables, { Authorization: `Bearer ${token}` });

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("users login", () => {
  it("answers a one-time UUID v4 token that expires 15 minutes later, with user_info and meta_info", async () => {
    const before = Date.now();
    const res = await login(LAB.ann);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      msg: "User logged in.",
      system_action: ["user_logged_in"],
      user_info: { clogin_id: String(LAB.ann), group_id: String(LAB.groupId), connected_to: String(LAB.ann) },
      meta_info: { clogin_id: String(LAB.ann) },
    });
    expect(res.body.user_token).toMatch(UUID_V4);
    expect(res.body.user_token_expires_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const expires = Date.parse(`${res.body.user_token_expires_at.replace(" ", "T")}Z`);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 900_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 900_000);
  });

  it("stores only a hash of the token", async () => {
    const res = await login(LAB.bob);
    const rows: { token_hash: string }[] = await t.dataSource.query("SELECT token_hash FROM login_token");
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((row) => row.token_hash === res.body.user_token)).toBe(false);
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.token_hash))).toBe(true);
  });

  it("accepts doc absent, {} or [] and clogin_id as digits; refuses any other doc naming it", async () => {
    expect(
      (await postRest(t.app, "users", { action: "login", group_id: LAB.groupId, clogin_id: String(LAB.ann) })).status,
    ).toBe(200);
    expect((await login(LAB.ann, LAB.groupId, { doc: [] })).status).toBe(200);
    const res = await login(LAB.ann, LAB.groupId, { doc: { a: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe("VALIDATION_FAILED");
    expect(res.body.errors).toEqual([
      { path: "doc", message: "must be absent, {} or [] (this action takes no doc members)" },
    ]);
  });

  it("requires clogin_id; an unknown user is 404 and a foreign project 403", async () => {
    const missing = await postRest(t.app, "users", { action: "login", group_id: LAB.groupId, doc: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ path: "clogin_id", message: "is required" }]);
    expect((await login(999999)).body.error_code).toBe("USER_NOT_FOUND");
    expect((await login(LAB.ann, OTHER.groupId)).status).toBe(403);
  });

  it("LOGIN_TOKEN_TTL_S sets the lifetime", async () => {
    const short = await startTestApp({ fixture: labFixture(), config: { loginTokenTtlSeconds: 60 } });
    try {
      const res = await postRest(short.app, "users", { action: "login", group_id: LAB.groupId, clogin_id: LAB.ann });
      const expires = Date.parse(`${res.body.user_token_expires_at.replace(" ", "T")}Z`);
      expect(expires - Date.now()).toBeLessThanOrEqual(60_000);
      expect(expires - Date.now()).toBeGreaterThan(55_000);
    } finally {
      await short.close();
    }
  });
});

describe("POST /reg/api2/session/", () => {
  it("redeems a token once for a 12-hour session, without API headers", async () => {
    const token = (await login(LAB.ann)).body.user_token;
    const first = await redeem({ user_token: token });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      success: true,
      user_info: { clogin_id: String(LAB.ann), group_id: String(LAB.groupId) },
    });
    expect(first.body.session_token).toEqual(expect.any(String));
    const expires = Date.parse(`${first.body.expires_at.replace(" ", "T")}Z`);
    expect(Math.abs(expires - (Date.now() + 12 * 3600_000))).toBeLessThan(5_000);
    const again = await redeem({ user_token: token });
    expect(again.status).toBe(401);
    expect(again.body.error_code).toBe("UNAUTHENTICATED");
  });

  it("used, expired and unknown tokens get the same 401 message", async () => {
    const used = (await login(LAB.ann)).body.user_token;
    await redeem({ user_token: used });
    const expired = (await login(LAB.ann)).body.user_token;
    await t.dataSource.query("UPDATE login_token SET expires_at = created_at");
    const answers = await Promise.all(
      [used, expired, "5a9e6ca9-9d86-4c68-8944-a6b8e2c20320"].map((user_token) => redeem({ user_token })),
    );
    for (const answer of answers) expect(answer.status).toBe(401);
    expect(new Set(answers.map((answer) => answer.body.msg)).size).toBe(1);
  });

  it("a missing user_token is 400 naming it; GET is 405", async () => {
    const res = await redeem({});
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: "user_token", message: expect.any(String) }]);
    expect((await request(t.app).get("/reg/api2/session/")).status).toBe(405);
  });

  it("stores only a hash of the session token", async () => {
    const session = await sessionOf(LAB.bob);
    const rows: { token_hash: string }[] = await t.dataSource.query("SELECT token_hash FROM registrant_session");
    expect(rows.some((row) => row.token_hash === session)).toBe(false);
  });
});

const ME = `{ me { cloginId groupId forms { form { formId } } fieldValues { field { identifier } text } } }`;

describe("the registrant session on /graphql", () => {
  it("me is the session's own User", async () => {
    const token = await sessionOf(LAB.ann);
    const res = await asRegistrant(token, ME);
    expect(res.errors).toBeUndefined();
    expect(res.data).toMatchObject({ me: { cloginId: LAB.ann, groupId: LAB.groupId } });
  });

  it("an unknown or expired session token is 401 UNAUTHENTICATED", async () => {
    const unknown = await asRegistrant("not-a-session", ME);
    expect(unknown.status).toBe(401);
    expect(unknown.errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    const token = await sessionOf(LAB.cy);
    await t.dataSource.query("UPDATE registrant_session SET expires_at = created_at");
    const expired = await asRegistrant(token, ME);
    expect(expired.status).toBe(401);
  });

  it("an API account asking for me or updateMe gets FORBIDDEN", async () => {
    const res = await graphql(t.app, ME);
    expect(res.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect(res.errors?.[0].message).toBe(
      "me needs a registrant session (Authorization: Bearer <session token>); an API account reads users with user or users.",
    );
    const update = await graphql(
      t.app,
      `
        mutation {
          updateMe(input: { values: {} }) {
            notices
          }
        }
      `,
    );
    expect(update.errors?.[0].extensions?.code).toBe("FORBIDDEN");
  });

  it("updateMe writes the session's own values with the rules of update", async () => {
    const token = await sessionOf(LAB.bob);
    const res = await asRegistrant(
      token,
      `mutation { updateMe(input: { values: { f_501_3: "41", nope: "x" } }) { notices user { cloginId } } }`,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data).toMatchObject({ updateMe: { user: { cloginId: LAB.bob } } });
    expect((res.data as { updateMe: { notices: string[] } }).updateMe.notices).toEqual([
      expect.stringContaining("nope"),
    ]);
    const info = await postRest(t.app, "users", {
      action: "update",
      group_id: LAB.groupId,
      clogin_id: LAB.bob,
      doc: {},
    });
    expect(info.status).toBe(200);
    const stored: { value: string }[] = await t.dataSource.query(
      "SELECT v.value FROM field_value v JOIN registration r ON r.uid = v.registration_id WHERE r.person_id = ? AND v.field_id = 'f_501_3'",
      [LAB.bob],
    );
    expect(stored.map((row) => row.value)).toEqual(["41"]);
  });
});

describe("updateMe limits", () => {
  it("more than 1000 values is refused in the payload, naming values", async () => {
    const token = await sessionOf(LAB.dee);
    const values = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, "x"]));
    const res = await asRegistrant(
      token,
      `mutation($v: JSONObject!) { updateMe(input: { values: $v }) { user { uid } notices problems { field reason } } }`,
      { v: values },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data?.updateMe).toEqual({
      user: null,
      notices: [],
      problems: [{ field: "input.values", reason: "TOO_MANY_ITEMS" }],
    });
  });
});

describe("the cross-registrant matrix: a session of A never reaches B, another project or an admin-only form", () => {
  let annToken: string;
  beforeAll(async () => {
    annToken = await sessionOf(LAB.ann);
  });

  const forbiddenRootFields: [string, string][] = [
    ["user B", `{ user(groupId: ${LAB.groupId}, cloginId: ${LAB.bob}) { cloginId } }`],
    ["user A through user", `{ user(groupId: ${LAB.groupId}, cloginId: ${LAB.ann}) { cloginId } }`],
    ["users of the project", `{ users(groupId: ${LAB.groupId}) { totalCount } }`],
    ["another project's user", `{ user(groupId: ${MAPLE.groupId}, cloginId: ${MAPLE.miles}) { cloginId } }`],
    ["the project list", `{ projects { groupId } }`],
    [
      "updateUser of B",
      `mutation { updateUser(input: { groupId: ${LAB.groupId}, cloginId: ${LAB.bob}, values: { f_501_3: "1" } }) { notices } }`,
    ],
    [
      "addEmail to B",
      `mutation { addEmail(input: { groupId: ${LAB.groupId}, cloginId: ${LAB.bob}, emails: [{ from: "a@b.test", to: "c@d.test", subject: "s", body: "b" }] }) { notices } }`,
    ],
  ];

  it.each(forbiddenRootFields)("%s: FORBIDDEN", async (_name, query) => {
    const res = await asRegistrant(annToken, query);
    expect(res.errors?.map((error) => error.extensions?.code)).toEqual(["FORBIDDEN"]);
    expect(res.errors?.[0].message).toMatch(/^\w+ is not available to a registrant session; use me or updateMe\.$/);
    expect(res.data == null || Object.values(res.data).every((value) => value === null)).toBe(true);
  });

  it.each(["parent", "children { cloginId }", "tags { tagId }", "emails { emailId }"])(
    "me.%s (other registrations or internal data): FORBIDDEN at its path, the rest of me answered",
    async (selection) => {
      const field = selection.split(" ")[0];
      const res = await asRegistrant(
        annToken,
        `{ me { cloginId ${selection.includes("{") ? selection : `${selection} { cloginId }`} } }`,
      );
      expect(res.errors?.map((error) => error.extensions?.code)).toEqual(["FORBIDDEN"]);
      expect(res.errors?.[0].message).toBe(`User.${field} is not available to a registrant session.`);
      expect(res.errors?.[0].path).toEqual(["me", field]);
      expect(res.data).toEqual({ me: { cloginId: LAB.ann, [field]: null } });
    },
  );

  it.each([
    ["statuses", "statuses { statusId }"],
    ["tags", "tags { nodes { tagId } }"],
    ["groupTotals", "groupTotals { totalUsers }"],
  ])("me.project.%s (the organization's catalogues and totals): FORBIDDEN at its path", async (field, selection) => {
    const res = await asRegistrant(annToken, `{ me { name project { name ${selection} } } }`);
    expect(res.errors?.map((error) => error.extensions?.code)).toEqual(["FORBIDDEN"]);
    expect(res.errors?.[0].message).toBe(`Project.${field} is not available to a registrant session.`);
    expect(res.errors?.[0].path).toEqual(["me", "project", field]);
    expect(res.data).toEqual({ me: { name: "Ann Able", project: { name: "Lab", [field]: null } } });
  });

  it("node of its own project's statuses, tags and products it may not add is NOT_FOUND, like a missing id", async () => {
    for (const id of [
      encodeNodeId("Status", { groupId: LAB.groupId, statusId: 95 }),
      encodeNodeId("Tag", { groupId: LAB.groupId, tagId: 96 }),
      encodeNodeId("Product", { groupId: LAB.groupId, pId: PRIVATE_PRODUCT }),
      encodeNodeId("Product", { groupId: LAB.groupId, pId: 85 }),
      encodeNodeId("Product", { groupId: LAB.groupId, pId: 86 }),
    ]) {
      const res = await asRegistrant(annToken, `query($id: ID!) { node(id: $id) { id } }`, { id });
      expect(res.data).toEqual({ node: null });
      expect(res.errors?.map((error) => [error.extensions?.code, error.message])).toEqual([
        ["NOT_FOUND", "No object with this id is visible to you."],
      ]);
    }
  });

  it("me does not show admin-only forms or their values", async () => {
    await postRest(t.app, "users", {
      action: "update",
      group_id: LAB.groupId,
      clogin_id: LAB.ann,
      doc: { f_503_1: "internal note" },
    });
    const asAdmin = await graphql(
      t.app,
      `{ user(groupId: ${LAB.groupId}, cloginId: ${LAB.ann}) { forms { form { formId } } fieldValues { field { identifier } } } }`,
    );
    const adminView = asAdmin.data as {
      user: { forms: { form: { formId: number } }[]; fieldValues: { field: { identifier: string } }[] };
    };
    expect(adminView.user.forms.map((row) => row.form.formId)).toContain(503);
    expect(adminView.user.fieldValues.map((row) => row.field.identifier)).toContain("f_503_1");
    const res = await asRegistrant(annToken, ME);
    const me = (res.data as { me: typeof adminView.user }).me;
    expect(me.forms.map((row) => row.form.formId)).not.toContain(503);
    expect(me.fieldValues.map((row) => row.field.identifier)).not.toContain("f_503_1");
  });

  it("updateMe cannot write an admin-only form's field (a notice says so) nor B's values", async () => {
    const res = await asRegistrant(
      annToken,
      `mutation { updateMe(input: { values: { f_503_1: "hacked" } }) { notices } }`,
    );
    expect(res.errors).toBeUndefined();
    expect((res.data as { updateMe: { notices: string[] } }).updateMe.notices).toEqual([
      expect.stringContaining("f_503_1"),
    ]);
    const rows: { value: string }[] = await t.dataSource.query(
      "SELECT v.value FROM field_value v WHERE v.field_id = 'f_503_1'",
    );
    expect(rows.map((row) => row.value)).not.toContain("hacked");
  });

  it("a session of a user of another project reaches only that registration", async () => {
    const patToken = await sessionOf(700005, LAB.familyGroupId);
    const res = await asRegistrant(patToken, `{ me { cloginId groupId } }`);
    expect(res.data).toEqual({ me: { cloginId: 700005, groupId: LAB.familyGroupId } });
    const other = await asRegistrant(patToken, `{ user(groupId: ${LAB.groupId}, cloginId: ${LAB.ann}) { cloginId } }`);
    expect(other.errors?.[0].extensions?.code).toBe("FORBIDDEN");
  });

  it("a session token is no credential on the REST endpoints", async () => {
    const res = await request(t.app)
      .post("/reg/api2/users/")
      .set("Authorization", `Bearer ${annToken}`)
      .send({ action: "update", group_id: LAB.groupId, clogin_id: LAB.bob, doc: { f_501_3: "9" } });
    expect(res.status).toBe(401);
  });
});

const PORTAL = `{
  me {
    name
    project {
      id name currency
      forms { id formId name mandatory fields { identifier label type mandatory choices { value label labelHtml } } }
      products { pId name price }
    }
  }
}`;

interface Portal {
  me: {
    name: string;
    project: {
      id: string;
      name: string;
      currency: string;
      forms: { id: string; formId: number; fields: { identifier: string; choices: unknown[] }[] }[];
      products: { pId: number; name: string; price: string }[];
    };
  };
}

describe("the registrant portal: me.project (issue 24)", () => {
  it("me { name project { currency } } answers data (User.project was FORBIDDEN, which nulled the answer)", async () => {
    const res = await asRegistrant(await sessionOf(LAB.bob), `{ me { name project { currency } } }`);
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({ me: { name: "Bob", project: { currency: "USD" } } });
  });

  it("the project, its forms, their fields and its products cost one statement each", async () => {
    const token = await sessionOf(LAB.dee);
    const measure = async (query: string) => {
      await asRegistrant(token, "{ __typename }");
      const { statements, result } = await t.countStatements(() => asRegistrant(token, query));
      expect(result.errors).toBeUndefined();
      return statements;
    };
    // The base reads the project too, so both keep the snapshot alike.
    const base = await measure(`{ me { name project { name } } }`);
    const portal = await measure(
      `{ me { name project { name forms { formId fields { identifier choices { label } } } products { pId } } } }`,
    );
    expect(portal - base).toBe(3);
  });

  it("the portal query of docs/graphql-clients.md answers without an error", async () => {
    const res = await asRegistrant(
      await sessionOf(LAB.cy),
      `query Portal {
        me {
          id name
          metaInfo { totalForms completedForms totalBalance }
          forms { id completed form { id formId } missingMandatoryFields { identifier } }
          fieldValues { id field { identifier } text choices }
          cartLines { id productName quantity amount }
          project {
            id name currency
            forms { id formId name mandatory fields { id identifier label type mandatory choices { value label labelHtml } } }
            products { id pId name price catId startDate endDate }
            categories { id catId name topRemark bottomRemark }
          }
        }
      }`,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data).toMatchObject({ me: { name: "Cy", project: { name: "Lab", currency: "USD" } } });
  });

  it("answers the project's name, currency, the forms the registrant fills with fields and choices, and its products", async () => {
    const res = await asRegistrant(await sessionOf(LAB.ann), PORTAL);
    expect(res.errors).toBeUndefined();
    const project = (res.data as unknown as Portal).me.project;
    expect(project).toMatchObject({
      id: encodeNodeId("Project", { groupId: LAB.groupId }),
      name: "Lab",
      currency: "USD",
    });
    // Every form of the project but the admin-only one (503), whether in the form set or not (502 is added later).
    expect(project.forms.map((form) => form.formId)).toEqual([501, 502, 504, 505]);
    const activities = project.forms[0].fields.find((field) => field.identifier === "f_501_8");
    expect(activities?.choices).toEqual([
      { value: "Swimming", label: "Swimming", labelHtml: "Swimming" },
      { value: "<b>Archery</b>", label: "Archery", labelHtml: "<b>Archery</b>" },
      { value: "<i>Rock</i> Climbing", label: "Rock Climbing", labelHtml: "<i>Rock</i> Climbing" },
      { value: "archery", label: "archery", labelHtml: "archery" },
    ]);
    expect(project.forms[0].fields.find((field) => field.identifier === "f_501_1")?.choices).toEqual([]);
    // What add_product would accept for Ann: not the private product, not a child's, not an expired one.
    expect(project.products).toEqual([
      { pId: LAB.products.kit, name: "Kit", price: "12.50" },
      { pId: LAB.products.extra, name: "Extra", price: "5.00" },
      { pId: 84, name: "Parents' dinner", price: "20.00" },
    ]);
    const asAccount = await graphql(t.app, `{ project(groupId: ${LAB.groupId}) { products { pId } } }`);
    expect(asAccount.data).toEqual({ project: { products: [81, 82, 84, 85, 86].map((pId) => ({ pId })) } });
  });

  it("the project's forms and products a parent and a child see differ by level", async () => {
    const formsOf = async (token: string) =>
      (await asRegistrant(token, `{ me { project { forms { formId level } products { pId } } } }`)).data as {
        me: { project: { forms: { formId: number; level: string }[]; products: { pId: number }[] } };
      };
    const parent = await formsOf(await sessionOf(700005, LAB.familyGroupId));
    expect(parent.me.project.forms).toEqual([
      { formId: 601, level: "ALL" },
      { formId: 602, level: "PARENT" },
      { formId: 604, level: "ALL" },
    ]);
    expect(parent.me.project.products).toEqual([{ pId: 87 }]);
    const child = await formsOf(await sessionOf(LAB.kid, LAB.familyGroupId));
    expect(child.me.project.forms.map((form) => form.formId)).toEqual([601, 603, 604]);
    expect(child.me.project.products).toEqual([{ pId: 88 }]);
  });

  it("the same forms and fields refetch by node id; an account sees every form of the project", async () => {
    const token = await sessionOf(LAB.ann);
    const project = (await asRegistrant(token, PORTAL)).data as unknown as Portal;
    for (const form of project.me.project.forms) {
      const res = await asRegistrant(token, `query($id: ID!) { node(id: $id) { id ... on Form { formId } } }`, {
        id: form.id,
      });
      expect(res.data).toEqual({ node: { id: form.id, formId: form.formId } });
    }
    const asAccount = await graphql(t.app, `{ project(groupId: ${LAB.groupId}) { forms { formId } } }`);
    expect(asAccount.data).toEqual({
      project: { forms: [501, 502, 503, 504, 505].map((formId) => ({ formId })) },
    });
  });
});
