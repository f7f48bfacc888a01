import { readFileSync } from "node:fs";
import { join } from "node:path";
import { authenticate } from "../../src/auth/authenticate";
import { hashApiToken, verifyPassword } from "../../src/auth/secrets";
import { createRequestContext } from "../../src/domain/context";
import {
  AdminComment,
  ApiAccount,
  CartLine,
  Field,
  FieldValue,
  Form,
  FormTrigger,
  Payment,
  Person,
  Registration,
  RegistrationForm,
  RegistrationTag,
} from "../../src/entities";
import { FixtureError } from "../../src/fixtures/check-fixture";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { watchTables } from "../support/tables";

/** The full example fixture (test/fixtures/spec-example.json), verbatim; its format is docs/fixtures.md. */
const specExample = () =>
  JSON.parse(readFileSync(join(__dirname, "../fixtures/spec-example.json"), "utf8")) as SpecExample;

interface SpecExample {
  organizations: {
    projects: {
      forms: { fields: Record<string, unknown>[] }[];
      triggers: Record<string, unknown>[];
      users: Record<string, unknown>[];
    }[];
  }[];
}

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.dispose());
afterEach(() => jest.restoreAllMocks());

const load = (fixture: unknown) => loadFixture(createRequestContext(db.state, "test"), fixture);

/** Loads `fixture`, expects a FixtureError, and checks that no table changed. */
async function expectRefused(fixture: unknown): Promise<FixtureError> {
  const tables = await watchTables(db.dataSource);
  const error = await load(fixture).then(
    () => {
      throw new Error("the fixture was accepted");
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FixtureError);
  await tables.expectNothingWritten();
  return error as FixtureError;
}

const project0 = "organizations[0].projects[0]";

describe("a broken copy of the spec example is refused with the member's path, and nothing is written", () => {
  it("unknown field type", async () => {
    const fixture = specExample();
    fixture.organizations[0].projects[0].forms[0].fields[0].type = "txt";
    const error = await expectRefused(fixture);
    expect(error.path).toBe(`${project0}.forms[0].fields[0].type`);
    expect(error.message).toBe(
      `${project0}.forms[0].fields[0].type: unknown field type "txt"; expected one of text, textarea, email, number, date, phone, single_choice, multiple_choice`,
    );
  });

  it("a missing required member", async () => {
    const fixture = specExample();
    delete fixture.organizations[0].projects[0].forms[1].fields[0].label;
    expect((await expectRefused(fixture)).path).toBe(`${project0}.forms[1].fields[0].label`);
  });

  it("a user form that is not a form of the project", async () => {
    const fixture = specExample();
    fixture.organizations[0].projects[0].users[0].forms = [301, 999];
    const error = await expectRefused(fixture);
    expect(error.message).toBe(`${project0}.users[0].forms[1]: form 999 is not a form of this project`);
  });

  it("a trigger's product that does not exist", async () => {
    const fixture = specExample();
    fixture.organizations[0].projects[0].triggers[1].productId = 78;
    const error = await expectRefused(fixture);
    expect(error.message).toBe(`${project0}.triggers[1].productId: product 78 is not a product of this project`);
  });

  it("a choice value that is not an option", async () => {
    const fixture = specExample();
    fixture.organizations[0].projects[0].users[0].values = { f_301_3: ["XL"] };
    const error = await expectRefused(fixture);
    expect(error.message).toBe(`${project0}.users[0].values.f_301_3: "XL" is not an option of f_301_3`);
  });

  it("a field id that does not follow f_<form>_<n>", async () => {
    const fixture = specExample();
    fixture.organizations[0].projects[0].forms[2].fields[0].id = "f_301_9";
    const error = await expectRefused(fixture);
    expect(error.message).toBe(`${project0}.forms[2].fields[0].id: field id "f_301_9" must match f_303_<n>`);
  });
});

describe("the spec example", () => {
  it("loads, with every row in place", async () => {
    const summary = await load(specExample());
    expect(summary).toEqual({ organizations: 1, apiAccounts: 1, projects: 1, forms: 3, users: 1 });

    const em = db.dataSource.manager;
    const account = await em.findOneByOrFail(ApiAccount, { id: 15263 });
    expect(account).toMatchObject({ organizationId: 1, apiUser: "api_admin@maple.test", active: true });
    expect(account.tokenHash).toBe(hashApiToken("any-secret-string"));
    await expect(
      authenticate(
        em,
        (name) => ({ "api-id": "15263", "api-user": "api_admin@maple.test", "api-token": "any-secret-string" })[name],
      ),
    ).resolves.toMatchObject({ organizationId: 1 });

    expect(
      (await em.find(Form, { order: { sortOrder: "ASC" } })).map((f) => [
        f.id,
        f.audience,
        f.audienceLevel,
        f.initial,
        f.mandatory,
      ]),
    ).toEqual([
      [301, "user", "all", true, true],
      [302, "user", "all", false, true],
      [303, "admin", "all", true, false],
    ]);
    const activities = await em.findOneByOrFail(Field, { id: "f_301_2" });
    expect(JSON.parse(activities.choiceOptions!)).toEqual(["Swimming", "<b>Archery</b>"]);
    expect(await em.count(Field)).toBe(5);
    expect((await em.find(FormTrigger, { order: { sortOrder: "ASC" } })).map((x) => x.action)).toEqual([
      "send_email",
      "add_product",
      "add_form",
    ]);

    const person = await em.findOneByOrFail(Person, { id: 102670540 });
    expect(person).toMatchObject({
      organizationId: 1,
      username: "miles@maple.test",
      mainEmail: "miles@maple.test",
      firstName: "Miles",
    });
    expect(person.passwordHash).not.toContain("secret1");
    expect(await verifyPassword("secret1", person.passwordHash!)).toBe(true);

    const registration = await em.findOneByOrFail(Registration, { projectId: 100909072, personId: 102670540 });
    expect(registration).toMatchObject({ connectedTo: null, statusId: 9, star: true, assignedAdminId: 501 });
    expect(new Date(registration.applicationDate).toISOString()).toBe("2026-02-01T09:30:00.000Z");
    const uid = registration.uid;
    expect((await em.findBy(RegistrationForm, { registrationId: uid })).map((f) => [f.formId, f.completed])).toEqual([
      [301, false],
    ]);
    expect((await em.findBy(FieldValue, { registrationId: uid })).map((v) => [v.fieldId, v.value])).toEqual([
      ["f_301_1", "Miles"],
    ]);
    expect((await em.findBy(RegistrationTag, { registrationId: uid })).map((x) => x.tagId)).toEqual([3]);
    expect(await em.countBy(AdminComment, { registrationId: uid })).toBe(2);
    expect(await em.findBy(CartLine, { registrationId: uid })).toMatchObject([
      { productId: 77, quantity: 1, unitPriceCents: 35000 },
    ]);
    const [payment] = await em.findBy(Payment, { registrationId: uid });
    expect(payment.amountCents).toBe(10000);
    expect(new Date(payment.paidAt).toISOString()).toBe("2026-02-02T10:00:00.000Z");
  });

  it("loaded a second time is refused, naming the first clash, and nothing is written", async () => {
    const error = await expectRefused(specExample());
    expect(error.message).toBe("organizations[0].id: organization 1 already exists in the database");
  });

  it("a fixture with new organization and project ids but an existing admin names the admin", async () => {
    const fixture = specExample() as unknown as { organizations: SpecOrganization[] };
    const org = fixture.organizations[0];
    org.id = 2;
    org.apiAccounts[0].id = 15264;
    org.projects[0].id = 100909099;
    org.admins[0].projectIds = [100909099];
    const error = await expectRefused(fixture);
    expect(error.message).toBe("organizations[0].admins[0].id: admin 501 already exists in the database");
  });

  it("a database failure in the middle of the load rolls everything back", async () => {
    const fixture = specExample() as unknown as { organizations: SpecOrganization[] };
    renumber(fixture.organizations[0]);
    const tables = await watchTables(db.dataSource);
    // A real failure from the database: a trigger refusing payments, the last rows of a user, so
    // by then most of the fixture has been inserted.
    const sqlite = db.dataSource.options.type === "better-sqlite3";
    await db.dataSource.query(
      sqlite
        ? `CREATE TRIGGER refuse_payment BEFORE INSERT ON payment BEGIN SELECT RAISE(ABORT, 'simulated database failure'); END`
        : `CREATE TRIGGER refuse_payment BEFORE INSERT ON payment FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'simulated database failure'`,
    );
    const before = db.sql.total;
    try {
      await expect(load(fixture)).rejects.toThrow("simulated database failure");
    } finally {
      await db.dataSource.query(`DROP TRIGGER refuse_payment`);
    }
    // The failure came late: project setup, forms, persons, registrations… were inserted first.
    expect(db.sql.total - before).toBeGreaterThan(10);
    await tables.expectNothingWritten();
  });
});

interface SpecOrganization {
  id: number;
  apiAccounts: { id: number }[];
  admins: { id: number; projectIds: number[] }[];
  projects: SpecProject[];
}

interface SpecProject {
  id: number;
  tags: { id: number }[];
  statuses: { id: number }[];
  products: { id: number }[];
  forms: { id: number; fields: { id: string }[] }[];
  triggers: { formId: number; productId?: number; addFormId?: number }[];
  users: {
    cloginId: number;
    forms: number[];
    statusId: number;
    tagIds: number[];
    assignedAdminId: number;
    cart: { productId: number }[];
    values: Record<string, unknown>;
  }[];
}

/** Moves every id of the spec example out of the way of the first load, keeping references intact. */
function renumber(org: SpecOrganization) {
  org.id = 3;
  org.apiAccounts[0].id = 15265;
  org.admins[0].id = 503;
  const project = org.projects[0];
  project.id = 100909098;
  org.admins[0].projectIds = [project.id];
  project.tags[0].id = 33;
  project.statuses[0].id = 99;
  project.products[0].id = 777;
  const formIds = new Map([
    [301, 3301],
    [302, 3302],
    [303, 3303],
  ]);
  for (const form of project.forms) {
    const old = form.id;
    form.id = formIds.get(old)!;
    for (const field of form.fields) field.id = field.id.replace(`f_${old}_`, `f_${form.id}_`);
  }
  for (const trigger of project.triggers) {
    trigger.formId = formIds.get(trigger.formId)!;
    if (trigger.productId) trigger.productId = 777;
    if (trigger.addFormId) trigger.addFormId = formIds.get(trigger.addFormId)!;
  }
  const user = project.users[0];
  user.cloginId = 102670599;
  user.forms = user.forms.map((id) => formIds.get(id)!);
  user.statusId = 99;
  user.tagIds = [33];
  user.assignedAdminId = 503;
  user.cart = [{ productId: 777 }];
  user.values = { f_3301_1: "Miles" };
}
