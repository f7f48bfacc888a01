import type { MigrationInterface, QueryRunner } from "typeorm";

const COLUMNS = "first_name, last_name, username, main_email";
const NEW_VALUES = "new.id, new.first_name, new.last_name, new.username, new.main_email";
const OLD_VALUES = "old.id, old.first_name, old.last_name, old.username, old.main_email";

/**
 * The users search on SQLite: an FTS5 index of the person table's names and emails (external
 * content: it stores the words, not the text), kept in step by triggers. Words are runs of
 * letters, digits and underscores, compared without case and accents: the words MySQL/MariaDB's
 * FULLTEXT parser makes of the same text (docs/graphql.md, "Search").
 */
export class PersonSearchSqlite1795868750901 implements MigrationInterface {
  name = "PersonSearchSqlite1795868750901";

  public async up(queryRunner: QueryRunner): Promise<void> {
    // TypeORM runs migrations before it synchronizes: a new database gets its tables first.
    if (!(await queryRunner.hasTable("person"))) await queryRunner.connection.synchronize();
    await queryRunner.query(
      `CREATE VIRTUAL TABLE IF NOT EXISTS person_search USING fts5(${COLUMNS}, content='person', content_rowid='id', tokenize="unicode61 remove_diacritics 2 tokenchars '_'")`,
    );
    await queryRunner.query(
      `CREATE TRIGGER IF NOT EXISTS person_search_insert AFTER INSERT ON person BEGIN
         INSERT INTO person_search (rowid, ${COLUMNS}) VALUES (${NEW_VALUES});
       END`,
    );
    await queryRunner.query(
      `CREATE TRIGGER IF NOT EXISTS person_search_delete AFTER DELETE ON person BEGIN
         INSERT INTO person_search (person_search, rowid, ${COLUMNS}) VALUES ('delete', ${OLD_VALUES});
       END`,
    );
    await queryRunner.query(
      `CREATE TRIGGER IF NOT EXISTS person_search_update AFTER UPDATE OF ${COLUMNS} ON person BEGIN
         INSERT INTO person_search (person_search, rowid, ${COLUMNS}) VALUES ('delete', ${OLD_VALUES});
         INSERT INTO person_search (rowid, ${COLUMNS}) VALUES (${NEW_VALUES});
       END`,
    );
    // Persons written before the table existed.
    await queryRunner.query(`INSERT INTO person_search (person_search) VALUES ('rebuild')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS person_search_update`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS person_search_delete`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS person_search_insert`);
    await queryRunner.query(`DROP TABLE IF EXISTS person_search`);
  }
}
