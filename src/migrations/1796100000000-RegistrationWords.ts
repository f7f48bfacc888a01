import { MigrationInterface, QueryRunner } from "typeorm";

// The users search's word table on MySQL/MariaDB: one row per word of each search document, with
// the registration's sort name, keyed (project, word, uid) and indexed (project, word, sort name,
// uid), so that the matches of a word are already in uid order and in name order and a page of
// them is the first entries of a range (src/data/search-words.data.ts). The FULLTEXT index gathers
// every match of a word before it can order or limit anything, and in name order the matches of a
// name lie in blocks deep in the order, which no walk of the name index reaches cheaply.
//
// Triggers keep the rows: a document written (inserted or replaced) rewrites its words, and a
// changed sort name follows to the words; a deleted registration takes its words along (the
// foreign key). They run inside the statement that writes the document, so a write costs no
// statement more. The document's text is its folded words, each after one space, letters, digits
// and underscores only, so splitting it on spaces into a JSON array is safe.

const CHUNK = 50000;

/** The words of `text` (a document's folded text), as rows of a JSON_TABLE named j. */
const wordsOf = (text: string) =>
    `JSON_TABLE(CONCAT('["', REPLACE(SUBSTRING(${text}, 2), ' ', '","'), '"]'), '$[*]' COLUMNS (\`word\` varchar(84) PATH '$')) j`;

const insertWords = (row: string) =>
    `INSERT INTO \`registration_word\` (\`project_id\`, \`word\`, \`uid\`, \`sort_name\`)
       SELECT ${row}.\`project_id\`, j.\`word\`, ${row}.\`uid\`, r.\`sort_name\`
         FROM \`registration\` r, ${wordsOf(`${row}.\`search_text\``)}
        WHERE r.\`uid\` = ${row}.\`uid\` AND ${row}.\`search_text\` <> ''`;

export class RegistrationWords1796100000000 implements MigrationInterface {
    name = 'RegistrationWords1796100000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`registration_word\` (\`project_id\` int NOT NULL, \`word\` varchar(84) NOT NULL,
            \`uid\` int NOT NULL, \`sort_name\` varchar(254) NOT NULL,
            PRIMARY KEY (\`project_id\`, \`word\`, \`uid\`),
            KEY \`IDX_registration_word_uid\` (\`uid\`, \`word\`),
            CONSTRAINT \`FK_registration_word_registration\` FOREIGN KEY (\`uid\`) REFERENCES \`registration\` (\`uid\`) ON DELETE CASCADE)
            ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
        // Existing documents, in chunks of uids (the name index is built once afterwards).
        const [{ top }] = await queryRunner.query(`SELECT COALESCE(MAX(\`uid\`), 0) AS top FROM \`registration_search\``);
        for (let from = 1; from <= Number(top); from += CHUNK)
            await queryRunner.query(
                `INSERT INTO \`registration_word\` (\`project_id\`, \`word\`, \`uid\`, \`sort_name\`)
                   SELECT s.\`project_id\`, j.\`word\`, s.\`uid\`, r.\`sort_name\`
                     FROM \`registration_search\` s JOIN \`registration\` r ON r.\`uid\` = s.\`uid\`, ${wordsOf("s.`search_text`")}
                    WHERE s.\`uid\` BETWEEN ? AND ? AND s.\`search_text\` <> ''`,
                [from, from + CHUNK - 1],
            );
        await queryRunner.query(`CREATE INDEX \`IDX_registration_word_name\` ON \`registration_word\` (\`project_id\`, \`word\`, \`sort_name\`, \`uid\`)`);
        await queryRunner.query(`CREATE TRIGGER \`registration_search_words_insert\` AFTER INSERT ON \`registration_search\` FOR EACH ROW
            ${insertWords("NEW")}`);
        await queryRunner.query(`CREATE TRIGGER \`registration_search_words_update\` AFTER UPDATE ON \`registration_search\` FOR EACH ROW
            BEGIN
              DELETE FROM \`registration_word\` WHERE \`uid\` = OLD.\`uid\`;
              ${insertWords("NEW")};
            END`);
        await queryRunner.query(`CREATE TRIGGER \`registration_sort_name_words\` AFTER UPDATE ON \`registration\` FOR EACH ROW
            BEGIN
              IF BINARY NEW.\`sort_name\` <> BINARY OLD.\`sort_name\` THEN
                UPDATE \`registration_word\` SET \`sort_name\` = NEW.\`sort_name\` WHERE \`uid\` = NEW.\`uid\`;
              END IF;
            END`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP TRIGGER IF EXISTS \`registration_sort_name_words\``);
        await queryRunner.query(`DROP TRIGGER IF EXISTS \`registration_search_words_update\``);
        await queryRunner.query(`DROP TRIGGER IF EXISTS \`registration_search_words_insert\``);
        await queryRunner.query(`DROP TABLE \`registration_word\``);
    }

}
