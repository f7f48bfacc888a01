import { MigrationInterface, QueryRunner } from "typeorm";

// The users search tests documents' text itself as well as reading the FULLTEXT index (a walk of
// a page's order for common words), so both must see the same words: each document's text becomes
// its distinct folded words (lower case, accents removed, cut to 84 characters), each after a space, as
// src/common/search-text.ts writes it from now on. The folding is copied here so that this
// migration keeps doing what it did. The index is dropped while the rows are rewritten (one
// sorted build afterwards instead of a million index updates).

const WORD = /[\p{L}\p{N}_]+/gu;
const MARKS = /\p{M}+/gu;
const CHUNK = 5000;

const folded = (text: string): string =>
    [...new Set((text.normalize("NFKD").replace(MARKS, "").toLowerCase().match(WORD) ?? []).map((word) => [...word].slice(0, 84).join("")))]
        .map((word) => ` ${word}`)
        .join("");

export class SearchFoldedText1796000000000 implements MigrationInterface {
    name = 'SearchFoldedText1796000000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`IDX_registration_search\` ON \`registration_search\``);
        let after = 0;
        for (;;) {
            const rows: { uid: number | string; search_text: string }[] = await queryRunner.query(
                `SELECT \`uid\`, \`search_text\` FROM \`registration_search\` WHERE \`uid\` > ? ORDER BY \`uid\` LIMIT ${CHUNK}`,
                [after],
            );
            if (rows.length === 0) break;
            after = Number(rows[rows.length - 1].uid);
            const changed = rows.filter((row) => folded(row.search_text) !== row.search_text);
            if (changed.length === 0) continue;
            await queryRunner.query(
                `UPDATE \`registration_search\` SET \`search_text\` = CASE \`uid\` ${changed.map(() => "WHEN ? THEN ?").join(" ")} END
                  WHERE \`uid\` IN (${changed.map(() => "?").join(", ")})`,
                [...changed.flatMap((row) => [Number(row.uid), folded(row.search_text)]), ...changed.map((row) => Number(row.uid))],
            );
        }
        await queryRunner.query(`SET SESSION innodb_ft_enable_stopword = OFF`);
        try {
            await queryRunner.query(`CREATE FULLTEXT INDEX \`IDX_registration_search\` ON \`registration_search\` (\`search_text\`)`);
        } finally {
            await queryRunner.query(`SET SESSION innodb_ft_enable_stopword = DEFAULT`);
        }
    }

    public async down(): Promise<void> {
        // The folded text holds the same words for the FULLTEXT index: nothing to undo.
    }

}
