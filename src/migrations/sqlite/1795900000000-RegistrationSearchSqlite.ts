import type { MigrationInterface, QueryRunner } from "typeorm";

const NAME = `lower(coalesce(nullif(trim(coalesce(p.first_name, '') || ' ' || coalesce(p.last_name, '')), ''),
                             nullif(trim(p.org_name), ''), coalesce(p.username, '')))`;
const TEXT = `coalesce(p.first_name, '') || ' ' || coalesce(p.last_name, '') || ' ' || coalesce(p.username, '') || ' ' || coalesce(p.main_email, '')`;

/**
 * The users search on SQLite: one search document per registration, an FTS5 table whose rowid is
 * the registration's uid (project_id stored beside the words, not indexed), written by
 * src/data/person-search.data.ts. Words are runs of letters, digits and underscores, compared
 * without case and accents: the words MySQL/MariaDB's FULLTEXT parser makes of the same text
 * (docs/graphql.md, "Search"). It replaces the person table's FTS5 index and its triggers.
 */
export class RegistrationSearchSqlite1795900000000 implements MigrationInterface {
  name = "RegistrationSearchSqlite1795900000000";

  public async up(queryRunner: QueryRunner): Promise<void> {
    // TypeORM runs migrations before it synchronizes: the registration table gets sort_name first.
    if (!(await queryRunner.hasColumn("registration", "sort_name"))) await queryRunner.connection.synchronize();
    await queryRunner.query(`DROP TRIGGER IF EXISTS person_search_update`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS person_search_delete`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS person_search_insert`);
    await queryRunner.query(`DROP TABLE IF EXISTS person_search`);
    await queryRunner.query(
      `CREATE VIRTUAL TABLE IF NOT EXISTS registration_search USING fts5(project_id UNINDEXED, search_text, tokenize="unicode61 remove_diacritics 2 tokenchars '_'")`,
    );
    // Registrations written before the table existed.
    await queryRunner.query(
      `INSERT INTO registration_search (rowid, project_id, search_text)
       SELECT r.uid, r.project_id, ${TEXT} FROM registration r JOIN person p ON p.id = r.person_id`,
    );
    await queryRunner.query(
      `UPDATE registration SET sort_name = (SELECT ${NAME} FROM person p WHERE p.id = registration.person_id)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS registration_search`);
  }
}
