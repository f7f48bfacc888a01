import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataSource } from "typeorm";
import { countSearchMatches, searchConditionSql, writeSearchDocuments } from "../../src/data/person-search.data";
import { insertPerson, updatePerson } from "../../src/data/persons.data";
import { insertRegistration } from "../../src/data/registrations.data";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { Organization, Person, Project, Registration } from "../../src/entities";
import { itOnMysqlFamily, itOnSqlite, openTestDatabase, type TestDatabase } from "../support/database";

// The search documents themselves: one per registration, written with the registration and with
// every change to its person's names and emails, counted and sliced by the index alone, and
// built for the registrations of a database that had them before the documents existed.

const GROUP = 31;
const OTHER_GROUP = 32;

const matchingUids = async (dataSource: DataSource, words: string[], groupId = GROUP) => {
  const search = searchConditionSql(dataSource.manager, "r.uid", groupId, words);
  const rows: { uid: number | string }[] = await dataSource.query(
    `SELECT r.uid FROM registration r WHERE ${search.sql} ORDER BY r.uid`,
    search.parameters,
  );
  return rows.map((row) => Number(row.uid));
};

const sortNameOf = async (dataSource: DataSource, uid: number) =>
  (await dataSource.getRepository(Registration).findOneByOrFail({ uid })).sortName;

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
  await db.dataSource.getRepository(Organization).insert({ id: 7, name: "Search Org" });
  for (const id of [GROUP, OTHER_GROUP])
    await db.dataSource.getRepository(Project).insert({
      id,
      organizationId: 7,
      name: `Search ${id}`,
      createdAt: new Date(),
      archived: false,
      familySystem: false,
    });
});
afterAll(() => db.dispose());

async function register(groupId: number, personId: number): Promise<number> {
  const now = new Date();
  const uid = await insertRegistration(db.dataSource.manager, {
    projectId: groupId,
    personId,
    connectedTo: null,
    applicationDate: now,
    updatedAt: now,
  });
  return uid!;
}

let accounts = 0;
const newPerson = async (firstName: string, lastName: string, email: string | null) =>
  (await insertPerson(db.dataSource.manager, {
    organizationId: 7,
    username: email ?? `account${++accounts}`,
    mainEmail: email,
    firstName,
    lastName,
    passwordHash: null,
    orgName: null,
  }))!;

describe("the search documents", () => {
  it("are written with each registration and follow every change to its person, in each project", async () => {
    const petra = await newPerson("Petra", "Lindqvist", "petra@fjord.test");
    const paul = await newPerson("Paul", "Lind", null);
    const petraHere = await register(GROUP, petra);
    const paulHere = await register(GROUP, paul);
    const petraThere = await register(OTHER_GROUP, petra);
    expect(await matchingUids(db.dataSource, ["lind"])).toEqual([petraHere, paulHere]);
    expect(await matchingUids(db.dataSource, ["fjord"])).toEqual([petraHere]);
    expect(await matchingUids(db.dataSource, ["fjord"], OTHER_GROUP)).toEqual([petraThere]);
    expect(await sortNameOf(db.dataSource, petraHere)).toBe("petra lindqvist");

    await updatePerson(db.dataSource.manager, petra, { lastName: "Oakes" });
    expect(await matchingUids(db.dataSource, ["lind"])).toEqual([paulHere]);
    expect(await matchingUids(db.dataSource, ["oakes"])).toEqual([petraHere]);
    expect(await matchingUids(db.dataSource, ["oakes"], OTHER_GROUP)).toEqual([petraThere]);
    expect(await sortNameOf(db.dataSource, petraThere)).toBe("petra oakes");

    await updatePerson(db.dataSource.manager, paul, { firstName: null, lastName: null, orgName: "Harbour Works" });
    expect(await matchingUids(db.dataSource, ["paul"])).toEqual([]);
    // The organization name is the display name then, not a searched word.
    expect(await sortNameOf(db.dataSource, paulHere)).toBe("harbour works");
    expect(await matchingUids(db.dataSource, ["harbour"])).toEqual([]);
    await updatePerson(db.dataSource.manager, paul, { mainEmail: "p@harbour.test" });
    expect(await matchingUids(db.dataSource, ["harbour"])).toEqual([paulHere]);
  });

  it("written from a new person's own values, are what reading the person back would write", async () => {
    const em = db.dataSource.manager;
    const person = {
      organizationId: 7,
      username: "quinn@estuary.test",
      mainEmail: "quinn@estuary.test",
      firstName: "Quinn",
      lastName: "Marlowe",
      passwordHash: null,
      orgName: "Estuary Ltd",
    };
    const personId = (await insertPerson(em, person))!;
    const now = new Date();
    const registration = { projectId: GROUP, personId, connectedTo: null, applicationDate: now, updatedAt: now };
    const uid = (await insertRegistration(em, registration, person))!;
    const written = async () => ({
      sortName: await sortNameOf(db.dataSource, uid),
      estuary: await matchingUids(db.dataSource, ["estuary"]),
      quinn: await matchingUids(db.dataSource, ["quinn", "marl"]),
    });
    const fromValues = await written();
    expect(fromValues).toEqual({ sortName: "quinn marlowe", estuary: [uid], quinn: [uid] });
    await writeSearchDocuments(em, { uids: [uid] });
    expect(await written()).toEqual(fromValues);
  });

  it("count and slice the matches of a project in uid order by the index alone", async () => {
    const uids: number[] = [];
    for (const n of [1, 2, 3, 4]) uids.push(await register(GROUP, await newPerson(`Marta${n}`, "Wexford", null)));
    const em = db.dataSource.manager;
    expect(await countSearchMatches(em, GROUP, ["wexford"], 100)).toBe(4);
    // Counted up to the cap: one more than the cap means more.
    expect(await countSearchMatches(em, GROUP, ["wexford"], 2)).toBe(3);
    expect(await countSearchMatches(em, OTHER_GROUP, ["wexford"], 100)).toBe(0);
    const slice = async (slice: Parameters<typeof searchConditionSql>[4]) => {
      const search = searchConditionSql(em, "r.uid", GROUP, ["wexford"], slice);
      const rows: { uid: number | string }[] = await em.query(
        `SELECT r.uid FROM registration r WHERE ${search.sql} ORDER BY r.uid`,
        search.parameters,
      );
      return rows.map((row) => Number(row.uid));
    };
    expect(await slice({ after: null, before: null, descending: false, limit: 2 })).toEqual(uids.slice(0, 2));
    expect(await slice({ after: { op: ">", uid: uids[0] }, before: null, descending: false, limit: 2 })).toEqual(
      uids.slice(1, 3),
    );
    expect(await slice({ after: null, before: { op: "<", uid: uids[3] }, descending: true, limit: 2 })).toEqual(
      uids.slice(1, 3),
    );
  });

  itOnMysqlFamily("are a FULLTEXT index of registration_search, and the person table has none", async () => {
    const rows: { Column_name: string; Index_type: string }[] = await db.dataSource.query(
      "SHOW INDEX FROM registration_search WHERE Index_type = 'FULLTEXT'",
    );
    expect(rows.map((row) => row.Column_name)).toEqual(["search_text"]);
    expect(await db.dataSource.query("SHOW INDEX FROM person WHERE Index_type = 'FULLTEXT'")).toEqual([]);
  });

  itOnSqlite("on SQLite, are built for the registrations a database had before the documents existed", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "person-search-")), "before.sqlite");
    // The schema as synchronization alone made it, before the search's migrations.
    const before = new DataSource({ ...buildDataSourceOptions({ kind: "sqlite", file }), migrationsRun: false });
    await before.initialize();
    await before.getRepository(Organization).insert({ id: 7, name: "Search Org" });
    await before.getRepository(Project).insert({
      id: GROUP,
      organizationId: 7,
      name: "Search",
      createdAt: new Date(),
      archived: false,
      familySystem: false,
    });
    await before.getRepository(Person).insert({
      id: 21,
      organizationId: 7,
      username: "early@bird.test",
      mainEmail: "early@bird.test",
      firstName: "Early",
      lastName: "Bird",
      passwordHash: null,
      orgName: null,
    });
    const now = new Date();
    await before.getRepository(Registration).insert({
      uid: 501,
      projectId: GROUP,
      personId: 21,
      connectedTo: null,
      statusId: null,
      star: false,
      applicationDate: now,
      updatedAt: now,
      assignedAdminId: null,
    });
    expect(await before.query("SELECT name FROM sqlite_master WHERE name = 'registration_search'")).toEqual([]);
    await before.destroy();

    const after = new DataSource(buildDataSourceOptions({ kind: "sqlite", file }));
    await after.initialize();
    try {
      expect(await matchingUids(after, ["bird"])).toEqual([501]);
      expect(await matchingUids(after, ["early", "bird"])).toEqual([501]);
      expect(await sortNameOf(after, 501)).toBe("early bird");
      expect(await after.query("SELECT name FROM sqlite_master WHERE name = 'person_search'")).toEqual([]);
    } finally {
      await after.destroy();
    }
  });
});
