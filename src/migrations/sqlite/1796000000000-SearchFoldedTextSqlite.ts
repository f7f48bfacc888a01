import type { MigrationInterface, QueryRunner } from "typeorm";

// SQLite's part of ../1796000000000-SearchFoldedText.ts: each search document's text becomes its
// distinct folded words, each after a space (src/common/search-text.ts), so that a test of the text and
// the FTS5 index find the same registrations. The folding is copied so that this migration keeps
// doing what it did.

const WORD = /[\p{L}\p{N}_]+/gu;
const MARKS = /\p{M}+/gu;
const CHUNK = 5000;

const folded = (text: string): string =>
  [
    ...new Set(
      (text.normalize("NFKD").replace(MARKS, "").toLowerCase().match(WORD) ?? []).map((word) =>
        [...word].slice(0, 84).join(""),
      ),
    ),
  ]
    .map((word) => ` ${word}`)
    .join("");

export class SearchFoldedTextSqlite1796000000000 implements MigrationInterface {
  name = "SearchFoldedTextSqlite1796000000000";

  public async up(queryRunner: QueryRunner): Promise<void> {
    let after = 0;
    for (;;) {
      const rows: { uid: number; project_id: number; search_text: string }[] = await queryRunner.query(
        `SELECT rowid AS uid, project_id, search_text FROM registration_search WHERE rowid > ? ORDER BY rowid LIMIT ${CHUNK}`,
        [after],
      );
      if (rows.length === 0) break;
      after = Number(rows[rows.length - 1].uid);
      for (const row of rows) {
        const text = folded(row.search_text);
        if (text === row.search_text) continue;
        // FTS5 tables have no upsert: the old document goes first.
        await queryRunner.query(`DELETE FROM registration_search WHERE rowid = ?`, [row.uid]);
        await queryRunner.query(`INSERT INTO registration_search (rowid, project_id, search_text) VALUES (?, ?, ?)`, [
          row.uid,
          row.project_id,
          text,
        ]);
      }
    }
  }

  public async down(): Promise<void> {
    // The folded text holds the same words for the FTS5 index: nothing to undo.
  }
}
