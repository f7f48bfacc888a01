import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataSource } from "typeorm";
import {
  countIndexedMatches,
  documentUidSql,
  indexedMatchSql,
  wordsTestSql,
  writeSearchDocuments,
} from "../../src/data/person-search.data";
import { insertPerson, updatePerson } from "../../src/data/persons.data";
import { insertRegistration } from "../../src/data/registrations.data";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { Organization, Person, Project, Registration } from "../../src/entities";
import { itOnMysqlFamily, itOnSqlite, openTestDatabase, type TestDatabase } from "../support/database";

// The search documents themselves: one per registration, written with the registration and with
// every change to its person's names and emails, matched alike by the index and by a test of their
// folded text, and built for the registrations of a database that had them before the documents
// existed.

const GROUP = 31;
const OTHER_GROUP = 32;

/** The uids the index finds for `words` (by its first word, the others tested). */
const matchingUids = async (dataSource: DataSource, words: string[], groupId = GROUP, indexed = words[0]) => {
  const match = indexedMatchSql(dataSource.manager, groupId, words, indexed);
  const rows: { uid: number | string }[] = await dataSource.query(
    `SELECT ${documentUidSql(dataSource.manager)} AS uid FROM registration_search WHERE ${match.sql} ORDER BY 1`,
    match.parameters,
  );
  return rows.map((row) => Number(row.uid));
};

/** The uids a test of every document's text finds for `words`, without the index. */
const testedUids = async (dataSource: DataSource, words: string[], groupId = GROUP) => {
  const tests = wordsTestSql(words);
  const rows: { uid: number | string }[] = await dataSource.query(
    `SELECT ${documentUidSql(dataSource.manager)} AS uid FROM registration_search
      WHERE registration_search.project_id = ? AND ${tests.sql} ORDER BY 1`,
    [groupId, ...tests.parameters],
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

  it("hold folded words, which the index and a test of the text match alike", async () => {
    const names: [string, string, string | null][] = [
      ["Zoë", "O'Hara-Lund", "ZOE.ohara@Mail.test"],
      ["Zoe", "Öhlund", null],
      ["Ann_Lee", "Wexford", "ann_lee@wex.test"],
      ["Marta", "Wexford", "marta@WEX.test"],
    ];
    const uids: number[] = [];
    for (const [first, last, email] of names) uids.push(await register(GROUP, await newPerson(first, last, email)));
    const [zoe, ohlund, ann, marta] = uids;
    const texts: { search_text: string }[] = await db.dataSource.query(
      `SELECT search_text FROM registration_search WHERE ${documentUidSql(db.dataSource.manager)} = ?`,
      [zoe],
    );
    expect(texts[0].search_text).toBe(" zoe o hara lund ohara mail test");
    const em = db.dataSource.manager;
    const searches: [string[], number[]][] = [
      [["zoe"], [zoe, ohlund]],
      [["hara"], [zoe]],
      [["ohl"], [ohlund]],
      [["wexford"], [ann, marta]],
      [["ann_lee"], [ann]],
      [["lee"], []],
      [["wex", "marta"], [marta]],
      [["zoe", "lund"], [zoe]],
      [["ara"], []],
    ];
    for (const [words, expected] of searches) {
      const sorted = [...expected].sort((a, b) => a - b);
      expect({ words, found: await testedUids(db.dataSource, words) }).toEqual({ words, found: sorted });
      for (const indexed of words) {
        expect({ words, indexed, found: await matchingUids(db.dataSource, words, GROUP, indexed) }).toEqual({
          words,
          indexed,
          found: sorted,
        });
        expect(await countIndexedMatches(em, GROUP, words, indexed)).toBe(expected.length);
      }
    }
    expect(await countIndexedMatches(em, OTHER_GROUP, ["wexford"], "wexford")).toBe(0);
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
      // Refolded by the later migration: the words once each, lower case, each after a space.
      expect(await after.query("SELECT search_text FROM registration_search WHERE rowid = 501")).toEqual([
        { search_text: " early bird test" },
      ]);
      expect(await testedUids(after, ["early", "bird"])).toEqual([501]);
      expect(await sortNameOf(after, 501)).toBe("early bird");
      expect(await after.query("SELECT name FROM sqlite_master WHERE name = 'person_search'")).toEqual([]);
    } finally {
      await after.destroy();
    }
  });
});
