import { MigrationInterface, QueryRunner } from "typeorm";

// SearchFoldedText1796000000000 dropped the FULLTEXT index, rewrote the documents and created the
// index again. On MariaDB 10.11 the index made that way finds none of the rows that were rewritten
// while it was gone (nor any that were there before), though its word tables hold them: a search by
// the index missed every registration the database had before that migration (the MariaDB test of
// the migrations on existing rows, test/data/person-search.test.ts). Rebuilding the table rebuilds
// the index from the rows, which finds them.
export class SearchIndexRebuild1796200000000 implements MigrationInterface {
    name = 'SearchIndexRebuild1796200000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`SET SESSION innodb_ft_enable_stopword = OFF`);
        try {
            await queryRunner.query(`ALTER TABLE \`registration_search\` FORCE`);
        } finally {
            await queryRunner.query(`SET SESSION innodb_ft_enable_stopword = DEFAULT`);
        }
    }

    public async down(): Promise<void> {
        // A rebuild changes no row: nothing to undo.
    }

}
