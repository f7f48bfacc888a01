import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataSource } from "typeorm";
import { personSearchSql } from "../../src/data/person-search.data";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { Organization, Person } from "../../src/entities";
import { itOnMysqlFamily, itOnSqlite, openTestDatabase, type TestDatabase } from "../support/database";

// The search index itself: made on both databases, kept in step with the person table, and
// built for the persons of a database that had them before it (SQLite's migration; MySQL/MariaDB's
// CREATE FULLTEXT INDEX indexes the existing rows itself).

const matchingIds = async (dataSource: DataSource, words: string[]) => {
  const search = personSearchSql(dataSource.manager, "p.id", words);
  const rows: { id: number | string }[] = await dataSource.query(
    `SELECT p.id FROM person p WHERE ${search.sql} ORDER BY p.id`,
    search.parameters,
  );
  return rows.map((row) => Number(row.id));
};

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
  await db.dataSource.getRepository(Organization).insert({ id: 7, name: "Search Org" });
});
afterAll(() => db.dispose());

const insertPerson = (id: number, firstName: string, lastName: string, email: string | null) =>
  db.dataSource.getRepository(Person).insert({
    id,
    organizationId: 7,
    username: email ?? `user-${id}`,
    mainEmail: email,
    firstName,
    lastName,
    passwordHash: null,
    orgName: null,
  });

describe("the person search index", () => {
  it("follows inserts, updates of each searched column, and deletes", async () => {
    await insertPerson(11, "Petra", "Lindqvist", "petra@fjord.test");
    await insertPerson(12, "Paul", "Lind", null);
    expect(await matchingIds(db.dataSource, ["lind"])).toEqual([11, 12]);
    expect(await matchingIds(db.dataSource, ["fjord"])).toEqual([11]);

    const persons = db.dataSource.getRepository(Person);
    await persons.update({ id: 11 }, { lastName: "Oakes" });
    expect(await matchingIds(db.dataSource, ["lind"])).toEqual([12]);
    expect(await matchingIds(db.dataSource, ["oakes"])).toEqual([11]);
    await persons.update({ id: 12 }, { firstName: "Quentin", mainEmail: "q@harbour.test", username: "quentin" });
    expect(await matchingIds(db.dataSource, ["paul"])).toEqual([]);
    expect(await matchingIds(db.dataSource, ["harbour"])).toEqual([12]);
    expect(await matchingIds(db.dataSource, ["quentin"])).toEqual([12]);
    // A column the search does not read leaves the index as it was.
    await persons.update({ id: 12 }, { orgName: "Harbourside" });
    expect(await matchingIds(db.dataSource, ["harbour"])).toEqual([12]);

    await persons.delete({ id: 11 });
    expect(await matchingIds(db.dataSource, ["oakes"])).toEqual([]);
    expect(await matchingIds(db.dataSource, ["petra"])).toEqual([]);
  });

  itOnMysqlFamily("is a FULLTEXT index over the four columns, made by the migration", async () => {
    const rows: { Column_name: string; Index_type: string }[] = await db.dataSource.query(
      "SHOW INDEX FROM person WHERE Key_name = 'IDX_person_search'",
    );
    expect(rows.map((row) => [row.Column_name, row.Index_type])).toEqual([
      ["first_name", "FULLTEXT"],
      ["last_name", "FULLTEXT"],
      ["username", "FULLTEXT"],
      ["main_email", "FULLTEXT"],
    ]);
  });

  itOnSqlite("on SQLite, indexes the persons a database had before the search existed", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "person-search-")), "before.sqlite");
    // The schema as synchronization alone made it, before the search's migration.
    const before = new DataSource({ ...buildDataSourceOptions({ kind: "sqlite", file }), migrationsRun: false });
    await before.initialize();
    await before.getRepository(Organization).insert({ id: 7, name: "Search Org" });
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
    expect(await before.query("SELECT name FROM sqlite_master WHERE name = 'person_search'")).toEqual([]);
    await before.destroy();

    const after = new DataSource(buildDataSourceOptions({ kind: "sqlite", file }));
    await after.initialize();
    try {
      expect(await matchingIds(after, ["bird"])).toEqual([21]);
      expect(await matchingIds(after, ["early", "bird"])).toEqual([21]);
    } finally {
      await after.destroy();
    }
  });
});
