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
import { wordPrefixPattern } from "../../src/data/search-words.data";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { Organization, Person, Project, Registration } from "../../src/entities";
import { MIGRATIONS } from "../../src/migrations";
import {
  createMysqlDatabase,
  itOnMysqlFamily,
  itOnSqlite,
  openTestDatabase,
  type TestDatabase,
} from "../support/database";

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

/** MySQL/MariaDB: the word table's rows of `uid` ("word sort_name"), and the uids it finds for `word`'s prefix in name order. */
const wordRowsOf = async (dataSource: DataSource, uid: number) =>
  (
    (await dataSource.query("SELECT word, sort_name FROM registration_word WHERE uid = ? ORDER BY word", [uid])) as {
      word: string;
      sort_name: string;
    }[]
  ).map((row) => `${row.word} ${row.sort_name}`);
const wordTableUids = async (dataSource: DataSource, words: string[], groupId = GROUP) => {
  const rows: { uid: number | string }[] = await dataSource.query(
    `SELECT r.uid FROM registration r WHERE r.project_id = ? AND ${words
      .map(() => "r.uid IN (SELECT w.uid FROM registration_word w WHERE w.project_id = ? AND w.word LIKE ?)")
      .join(" AND ")} ORDER BY r.uid`,
    [groupId, ...words.flatMap((word) => [groupId, wordPrefixPattern(word)])],
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
      if (db.config.kind !== "sqlite")
        expect({ words, words_table: await wordTableUids(db.dataSource, words) }).toEqual({
          words,
          words_table: sorted,
        });
    }
    expect(await countIndexedMatches(em, OTHER_GROUP, ["wexford"], "wexford")).toBe(0);
  });

  itOnMysqlFamily(
    "on MySQL/MariaDB, fill the word table: each word once with the sort name, as both change",
    async () => {
      const person = await newPerson("Ines", "Aldana", "ines.aldana@cove.test");
      const uid = await register(GROUP, person);
      expect(await wordRowsOf(db.dataSource, uid)).toEqual([
        "aldana ines aldana",
        "cove ines aldana",
        "ines ines aldana",
        "test ines aldana",
      ]);
      await updatePerson(db.dataSource.manager, person, { lastName: "Brandt", mainEmail: "ines@cove.test" });
      // The username keeps the old last name.
      expect(await wordRowsOf(db.dataSource, uid)).toEqual([
        "aldana ines brandt",
        "brandt ines brandt",
        "cove ines brandt",
        "ines ines brandt",
        "test ines brandt",
      ]);
      // A sort name that changes without the document (the organization name is not searched).
      await updatePerson(db.dataSource.manager, person, { firstName: null, lastName: null, orgName: "Cove Works" });
      expect(await wordRowsOf(db.dataSource, uid)).toEqual([
        "aldana cove works",
        "cove cove works",
        "ines cove works",
        "test cove works",
      ]);
      // Erased or deleted: no word is left.
      await db.dataSource.query("UPDATE registration_search SET search_text = '' WHERE uid = ?", [uid]);
      expect(await wordRowsOf(db.dataSource, uid)).toEqual([]);
      await db.dataSource.query("UPDATE registration_search SET search_text = ' cove' WHERE uid = ?", [uid]);
      await db.dataSource.query("DELETE FROM registration WHERE uid = ?", [uid]);
      expect(await wordRowsOf(db.dataSource, uid)).toEqual([]);
    },
  );

  itOnMysqlFamily(
    "on MySQL/MariaDB, are refolded and split into words for the registrations a database had before",
    async () => {
      const config = await createMysqlDatabase(`${process.pid}_before_words`);
      const through = MIGRATIONS.findIndex((migration) => migration.name === "RegistrationSearch1795900000000");
      expect(through).toBeGreaterThan(0);
      // The schema and the documents as they were before the folding and the word table.
      const before = new DataSource({
        ...buildDataSourceOptions(config),
        migrations: MIGRATIONS.slice(0, through + 1),
      });
      await before.initialize();
      try {
        await before.runMigrations({ transaction: "each" });
        await before.query("INSERT INTO organization (id, name) VALUES (7, 'Search Org')");
        await before.query(
          `INSERT INTO project (id, organization_id, name, created_at, archived, family_system)
         VALUES (?, 7, 'Search', NOW(), 0, 0)`,
          [GROUP],
        );
        await before.query(
          `INSERT INTO person (id, organization_id, username, main_email, first_name, last_name)
         VALUES (21, 7, 'ZOE.ohara@Mail.test', 'ZOE.ohara@Mail.test', 'Zoë', 'O''Hara-Lund')`,
        );
        await before.query(
          `INSERT INTO registration (uid, project_id, person_id, application_date, updated_at, sort_name)
         VALUES (501, ?, 21, NOW(), NOW(), 'zoë o''hara-lund')`,
          [GROUP],
        );
        // What the first documents held: the values themselves, as RegistrationSearch1795900000000 wrote them.
        await before.query(
          `INSERT INTO registration_search (uid, project_id, search_text)
         VALUES (501, ?, 'Zoë O''Hara-Lund ZOE.ohara@Mail.test ZOE.ohara@Mail.test')`,
          [GROUP],
        );
        expect(await before.query("SHOW TABLES LIKE 'registration_word'")).toEqual([]);
      } finally {
        await before.destroy();
      }
      const after = new DataSource(buildDataSourceOptions(config));
      await after.initialize();
      try {
        await after.runMigrations({ transaction: "each" });
        expect(await after.showMigrations()).toBe(false);
        expect(await after.query("SELECT search_text FROM registration_search WHERE uid = 501")).toEqual([
          { search_text: " zoe o hara lund ohara mail test" },
        ]);
        expect(await wordRowsOf(after, 501)).toEqual(
          ["hara", "lund", "mail", "o", "ohara", "test", "zoe"].map((word) => `${word} zoë o'hara-lund`),
        );
        for (const words of [["zoe"], ["hara", "lund"], ["ohar"]]) {
          expect({ words, index: await matchingUids(after, words) }).toEqual({ words, index: [501] });
          expect({ words, text: await testedUids(after, words) }).toEqual({ words, text: [501] });
          expect({ words, table: await wordTableUids(after, words) }).toEqual({ words, table: [501] });
        }
        expect(await wordTableUids(after, ["ara"])).toEqual([]);
      } finally {
        if (!process.env.KEEP_DB) await after.query(`DROP DATABASE IF EXISTS \`${config.database}\``);
        await after.destroy();
      }
    },
  );

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
