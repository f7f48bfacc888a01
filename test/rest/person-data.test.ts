import type { DataSource } from "typeorm";
import { sqlDate } from "../../src/data/events.data";
import { MAPLE, OTHER, mapleHeaders } from "../fixtures/test-fixture";
import { outputFields, regapi } from "../cli/support/run-in-process";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";

// A person's data exported and erased (issue 25, item 3), through HTTP on both transports and
// through the CLI. The erasure is checked by searching every text column of every table of the
// live schema for what identified the person.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** What identifies the person made below; none of it may remain anywhere after the erasure. */
const TRACES = {
  firstName: "Zelphine",
  lastName: "Quorrington",
  email: "zelphine.quorrington@erase.test",
  allergy: "Peanut-Quorrington-Marker",
  instrument: "Theremin-Zelphine-Marker",
  emailSubject: "Zelphine your cabin",
  cartRemark: "for Zelphine only",
  paymentNote: "paid by Quorrington family",
  comment: "Zelphine called twice",
};
const needles = Object.values(TRACES);

/** Every text-holding column of every table, read from the database's own catalog. */
async function textColumns(dataSource: DataSource): Promise<{ table: string; column: string }[]> {
  if (dataSource.options.type === "better-sqlite3") {
    const tables: { name: string }[] = await dataSource.query(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    );
    const columns: { table: string; column: string }[] = [];
    for (const { name } of tables) {
      const info: { name: string; type: string }[] = await dataSource.query(`PRAGMA table_info("${name}")`);
      for (const column of info)
        if (/char|text|clob/i.test(column.type)) columns.push({ table: name, column: column.name });
    }
    return columns;
  }
  const rows: { table_name: string; column_name: string }[] = await dataSource.query(
    `SELECT table_name AS table_name, column_name AS column_name FROM information_schema.columns
      WHERE table_schema = DATABASE() AND data_type IN ('char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext', 'json')`,
  );
  return rows.map((row) => ({ table: row.table_name, column: row.column_name }));
}

/** Where any of the needles occurs: `table.column: needle`, for every hit in the database. */
async function tracesIn(dataSource: DataSource, texts: readonly string[]): Promise<string[]> {
  const q = dataSource.options.type === "better-sqlite3" ? '"' : "`";
  const hits: string[] = [];
  for (const { table, column } of await textColumns(dataSource)) {
    for (const text of texts) {
      const [row]: { n: number | string }[] = await dataSource.query(
        `SELECT COUNT(*) AS n FROM ${q}${table}${q} WHERE LOWER(${q}${column}${q}) LIKE ?`,
        [`%${text.toLowerCase()}%`],
      );
      if (Number(row.n) > 0) hits.push(`${table}.${column}: ${text}`);
    }
  }
  return hits;
}

const sum = async (sql: string, parameters: unknown[]) =>
  Number(((await t.dataSource.query(sql, parameters)) as { s: number | string | null }[])[0].s ?? 0);

/** Registers the person in two projects with values, emails, a cart, a payment, a tag and a comment. */
async function makePerson(): Promise<{ cloginId: number; uids: number[] }> {
  const created = await postRest(t.app, "users", {
    action: "create",
    group_id: MAPLE.groupId,
    doc: {
      username: TRACES.email,
      password: "secret-Zq1",
      main_email: TRACES.email,
      first_name: TRACES.firstName,
      last_name: TRACES.lastName,
      f_301_3: "M",
    },
  });
  expect(created.status).toBe(200);
  const cloginId = Number((created.body.user_info as { clogin_id: string }).clogin_id);
  const jazz = await postRest(t.app, "users", {
    action: "create",
    group_id: MAPLE.jazzGroupId,
    clogin_id: cloginId,
    doc: { your_instrument: TRACES.instrument },
  });
  expect(jazz.status).toBe(200);
  // An update whose answer (holding the person's name) is stored for an Idempotency-Key replay.
  const updated = await postRest(
    t.app,
    "users",
    { action: "update", group_id: MAPLE.groupId, clogin_id: cloginId, doc: { allergies: TRACES.allergy } },
    { ...mapleHeaders, "Idempotency-Key": "erase-test-update-1" },
  );
  expect(updated.status).toBe(200);
  const emailed = await postRest(t.app, "users", {
    action: "add_email",
    group_id: MAPLE.groupId,
    clogin_id: cloginId,
    doc: {
      email_list: [{ from: "office@maple.test", to: TRACES.email, subject: TRACES.emailSubject, body: "Cabin 7." }],
    },
  });
  expect(emailed.status).toBe(200);
  const added = await postRest(t.app, "users", {
    action: "add_product",
    group_id: MAPLE.groupId,
    clogin_id: cloginId,
    product_list: [{ p_id: 78, q: 2, product_remark: TRACES.cartRemark }],
  });
  expect(added.status).toBe(200);
  const login = await postRest(t.app, "users", { action: "login", group_id: MAPLE.groupId, clogin_id: cloginId });
  expect(login.status).toBe(200);
  const session = await postRest(t.app, "/reg/api2/session/", { user_token: login.body.user_token });
  expect(session.status).toBe(200);

  // No API writes payments, tags or comments (admins do, in the original product): rows as it keeps them.
  const uids = (
    (await t.dataSource.query("SELECT uid FROM registration WHERE person_id = ? ORDER BY uid", [cloginId])) as {
      uid: number;
    }[]
  ).map((row) => Number(row.uid));
  const now = sqlDate(t.dataSource.manager, new Date());
  await t.dataSource.query(
    "INSERT INTO payment (registration_id, amount_cents, paid_at, method, note) VALUES (?, ?, ?, ?, ?)",
    [uids[0], 12345, now, "card", TRACES.paymentNote],
  );
  await t.dataSource.query("INSERT INTO registration_tag (registration_id, tag_id) VALUES (?, ?)", [uids[0], 3]);
  await t.dataSource.query(
    "INSERT INTO admin_comment (registration_id, admin_id, body, created_at) VALUES (?, NULL, ?, ?)",
    [uids[0], TRACES.comment, now],
  );
  return { cloginId, uids };
}

const EXPORT = `query($groupId: Int!, $cloginId: Int!) { personExport(groupId: $groupId, cloginId: $cloginId) }`;
const ERASE = `mutation($groupId: Int!, $cloginId: Int!) {
  erasePerson(input: { groupId: $groupId, cloginId: $cloginId }) {
    cloginId groupIds
    erased { fieldValues forms emails emailsSent tags comments sessions cartLinesAnonymized paymentsAnonymized eventsScrubbed idempotencyAnswersRemoved }
  }
}`;

describe("persons export and erase", () => {
  let person: { cloginId: number; uids: number[] };
  let cartCents: number;
  let paidCents: number;

  beforeAll(async () => {
    person = await makePerson();
    cartCents = await sum(
      "SELECT SUM(quantity * unit_price_cents) AS s FROM cart_line c JOIN registration r ON r.uid = c.registration_id WHERE r.person_id = ?",
      [person.cloginId],
    );
    paidCents = await sum(
      "SELECT SUM(amount_cents) AS s FROM payment p JOIN registration r ON r.uid = p.registration_id WHERE r.person_id = ?",
      [person.cloginId],
    );
    expect(cartCents).toBeGreaterThan(0);
  });

  it("exports everything held about the person as one document, the same through REST and GraphQL", async () => {
    const rest = await postRest(t.app, "persons", {
      action: "export",
      group_id: MAPLE.groupId,
      clogin_id: person.cloginId,
    });
    expect(rest.status).toBe(200);
    const document = rest.body.person_export as Record<string, unknown> & {
      registrations: Record<string, unknown[]>[];
      events: { type: string }[];
    };
    expect(document).toMatchObject({
      format: "regapi.person-export/1",
      clogin_id: person.cloginId,
      person: { main_email: TRACES.email, first_name: TRACES.firstName, last_name: TRACES.lastName },
    });
    expect(document.registrations.map((r) => r.group_id)).toEqual([MAPLE.groupId, MAPLE.jazzGroupId]);
    const text = JSON.stringify(document);
    for (const needle of needles) expect(text).toContain(needle);
    const [camp] = document.registrations;
    for (const part of ["field_values", "forms", "cart", "payments", "emails", "tags", "comments"])
      expect(camp[part].length).toBeGreaterThan(0);
    expect(document.events.map((event) => event.type)).toEqual(
      expect.arrayContaining(["user.created", "user.updated", "email.recorded", "cart.product_added"]),
    );
    expect(text).not.toMatch(/scrypt|password/);

    const gql = await graphql<{ personExport: Record<string, unknown> }>(t.app, EXPORT, {
      groupId: MAPLE.groupId,
      cloginId: person.cloginId,
    });
    expect(gql.errors).toBeUndefined();
    expect({ ...gql.data!.personExport, exported_at: null }).toEqual({ ...document, exported_at: null });
  });

  it("exports in a fixed number of statements, however many projects the person is in", async () => {
    const exportOf = async (cloginId: number) => {
      // An unmeasured request first: the API account is then cached for every measured one.
      await postRest(t.app, "account", { action: "whoami", group_id: MAPLE.groupId });
      const { statements, result } = await t.countStatements(() =>
        postRest(t.app, "persons", { action: "export", group_id: MAPLE.groupId, clogin_id: cloginId }),
      );
      expect(result.status).toBe(200);
      return { statements, registrations: (result.body.person_export as { registrations: unknown[] }).registrations };
    };
    const twoProjects = await exportOf(person.cloginId);
    const oneProject = await exportOf(MAPLE.bill);
    expect([twoProjects.registrations.length, oneProject.registrations.length]).toEqual([2, 1]);
    expect(twoProjects.statements).toBe(oneProject.statements);
    // BEGIN, the project, the person, its registrations, nine kinds of holdings, sessions, COMMIT.
    expect(twoProjects.statements).toBeLessThanOrEqual(16);
  });

  it("answers the same FORBIDDEN and NOT_FOUND on both transports", async () => {
    const foreign = await postRest(t.app, "persons", { action: "erase", group_id: OTHER.groupId, clogin_id: 1 });
    expect(foreign.status).toBe(403);
    const gqlForeign = await graphql(t.app, ERASE, { groupId: OTHER.groupId, cloginId: 1 });
    expect(gqlForeign.errors?.[0]).toMatchObject({ message: foreign.body.msg, extensions: { code: "FORBIDDEN" } });

    const missing = await postRest(t.app, "persons", {
      action: "export",
      group_id: MAPLE.groupId,
      clogin_id: 300000001,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.msg).toBe("Person 300000001 is not a person of your organization.");
    const gqlMissing = await graphql(t.app, EXPORT, { groupId: MAPLE.groupId, cloginId: 300000001 });
    expect(gqlMissing.errors?.[0]).toMatchObject({ message: missing.body.msg, extensions: { code: "NOT_FOUND" } });
  });

  it("needs the persons.erase scope: a read key is refused and nothing changes", async () => {
    const run = await regapi(
      ["api-key", "create", "--org", "1", "--user", "reader@erase.test", "--scope", "read"],
      t.state,
    );
    const fields = outputFields(run.stdout);
    const reader = { "Api-Id": fields["Api-Id"], "Api-User": fields["Api-User"], "Api-Token": fields["Api-Token"] };
    const refused = await postRest(
      t.app,
      "persons",
      { action: "erase", group_id: MAPLE.groupId, clogin_id: person.cloginId },
      reader,
    );
    expect(refused.status).toBe(403);
    expect(refused.body.msg).toBe('This API key lacks the scope "persons.erase" (its scope: read).');
    const exportRefused = await graphql(t.app, EXPORT, { groupId: MAPLE.groupId, cloginId: person.cloginId }, reader);
    expect(exportRefused.errors?.[0].message).toBe('This API key lacks the scope "persons.export" (its scope: read).');
    expect(await tracesIn(t.dataSource, [TRACES.lastName])).not.toEqual([]);
  });

  it("erases in one call: no table holds the name, email or values; amounts stay; person.erased carries ids only", async () => {
    expect((await tracesIn(t.dataSource, needles)).length).toBeGreaterThan(5);
    const eventsBefore = await sum("SELECT MAX(id) AS s FROM event", []);

    const gql = await graphql<{ erasePerson: Record<string, unknown> & { erased: Record<string, number> } }>(
      t.app,
      ERASE,
      { groupId: MAPLE.groupId, cloginId: person.cloginId },
    );
    expect(gql.errors).toBeUndefined();
    const erasure = gql.data!.erasePerson;
    expect(erasure).toMatchObject({ cloginId: person.cloginId, groupIds: [MAPLE.groupId, MAPLE.jazzGroupId] });
    expect(erasure.erased).toMatchObject({
      tags: 1,
      comments: 1,
      sessions: 2,
      paymentsAnonymized: 1,
      idempotencyAnswersRemoved: 1,
    });
    // add_email's record, and any a trigger recorded; one cart line per item of the quantity 2.
    expect(erasure.erased.emails).toBeGreaterThanOrEqual(1);
    expect(erasure.erased.cartLinesAnonymized).toBeGreaterThanOrEqual(1);
    expect(erasure.erased.fieldValues).toBeGreaterThanOrEqual(3);
    expect(erasure.erased.eventsScrubbed).toBeGreaterThanOrEqual(5);

    expect(await tracesIn(t.dataSource, needles)).toEqual([]);

    // The organization's accounts still add up: the amounts are kept, without identity.
    expect(
      await sum(
        "SELECT SUM(quantity * unit_price_cents) AS s FROM cart_line c JOIN registration r ON r.uid = c.registration_id WHERE r.person_id = ?",
        [person.cloginId],
      ),
    ).toBe(cartCents);
    expect(
      await sum(
        "SELECT SUM(amount_cents) AS s FROM payment p JOIN registration r ON r.uid = p.registration_id WHERE r.person_id = ?",
        [person.cloginId],
      ),
    ).toBe(paidCents);

    const erasedEvents: { group_id: number; data: string }[] = await t.dataSource.query(
      "SELECT group_id, data FROM event WHERE type = 'person.erased' AND id > ? ORDER BY id",
      [eventsBefore],
    );
    expect(erasedEvents.map((event) => Number(event.group_id))).toEqual([MAPLE.groupId, MAPLE.jazzGroupId]);
    for (const event of erasedEvents)
      expect(Object.keys(JSON.parse(event.data) as object).sort()).toEqual(["clogin_id", "erased_at", "uid"]);

    // The person's session stopped working; the export now holds no personal data.
    const after = await postRest(t.app, "persons", {
      action: "export",
      group_id: MAPLE.groupId,
      clogin_id: person.cloginId,
    });
    expect(after.status).toBe(200);
    const text = JSON.stringify(after.body.person_export);
    for (const needle of needles) expect(text).not.toContain(needle);
  });
});

describe("a failed erasure", () => {
  it("changes nothing: the deletes before the failing statement roll back with it", async () => {
    const created = await postRest(t.app, "users", {
      action: "create",
      group_id: MAPLE.groupId,
      doc: {
        username: "rollback@erase.test",
        password: "secret-Rb1",
        main_email: "rollback@erase.test",
        first_name: "Rollanda",
        last_name: "Backwater",
        allergies: "Rollback-Allergy-Marker",
      },
    });
    expect(created.status).toBe(200);
    const cloginId = Number((created.body.user_info as { clogin_id: string }).clogin_id);
    const traces = ["Rollanda", "Backwater", "rollback@erase.test", "Rollback-Allergy-Marker"];
    const before = await tracesIn(t.dataSource, traces);
    expect(before.length).toBeGreaterThan(3);

    // The person row is the erasure's last write: a database that refuses it fails the call there.
    const sqlite = t.dataSource.options.type === "better-sqlite3";
    await t.dataSource.query(
      sqlite
        ? "CREATE TRIGGER refuse_person_update BEFORE UPDATE ON person BEGIN SELECT RAISE(ABORT, 'refused by test'); END"
        : "CREATE TRIGGER refuse_person_update BEFORE UPDATE ON person FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by test'",
    );
    try {
      const failed = await postRest(t.app, "persons", {
        action: "erase",
        group_id: MAPLE.groupId,
        clogin_id: cloginId,
      });
      expect(failed.status).toBe(500);
      expect(JSON.stringify(failed.body)).not.toContain("refused by test");
    } finally {
      await t.dataSource.query("DROP TRIGGER refuse_person_update");
    }
    expect(await tracesIn(t.dataSource, traces)).toEqual(before);
    const erased: { n: number | string }[] = await t.dataSource.query(
      "SELECT COUNT(*) AS n FROM event WHERE type = 'person.erased' AND data LIKE ?",
      [`{"clogin_id":${cloginId},%`],
    );
    expect(Number(erased[0].n)).toBe(0);

    const retried = await postRest(t.app, "persons", { action: "erase", group_id: MAPLE.groupId, clogin_id: cloginId });
    expect(retried.status).toBe(200);
    expect(await tracesIn(t.dataSource, traces)).toEqual([]);
  });
});

describe("regapi person export|erase", () => {
  it("exports to stdout, refuses to erase without --yes, then erases", async () => {
    const created = await postRest(t.app, "users", {
      action: "create",
      group_id: MAPLE.jazzGroupId,
      doc: {
        username: "cli-erase@erase.test",
        password: "secret-Cl1",
        main_email: "cli-erase@erase.test",
        first_name: "Clementine",
        last_name: "Eraserhead",
        your_instrument: "Kazoo-Clementine",
      },
    });
    expect(created.status).toBe(200);
    const cloginId = (created.body.user_info as { clogin_id: string }).clogin_id;

    const exported = await regapi(["person", "export", "--org", "1", "--clogin-id", cloginId], t.state);
    expect(exported.code).toBe(0);
    const document = JSON.parse(exported.stdout) as { person: { last_name: string } };
    expect(document.person.last_name).toBe("Eraserhead");
    expect(exported.stdout).toContain("Kazoo-Clementine");

    const unconfirmed = await regapi(["person", "erase", "--org", "1", "--clogin-id", cloginId], t.state);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain("run again with --yes to confirm");
    expect(await tracesIn(t.dataSource, ["Eraserhead"])).not.toEqual([]);

    const erased = await regapi(["person", "erase", "--org", "1", "--clogin-id", cloginId, "--yes"], t.state);
    expect(erased.code).toBe(0);
    expect(erased.stdout).toContain(`erased person ${cloginId} of organization 1`);
    expect(erased.stdout).toContain(`projects: ${MAPLE.jazzGroupId}`);
    expect(await tracesIn(t.dataSource, ["Eraserhead", "Clementine", "cli-erase@erase.test"])).toEqual([]);

    const foreign = await regapi(["person", "erase", "--org", "2", "--clogin-id", cloginId, "--yes"], t.state);
    expect(foreign).toMatchObject({
      code: 1,
      stderr: `regapi: Person ${cloginId} is not a person of your organization.\n`,
    });
  });
});
