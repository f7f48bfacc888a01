import { MigrationInterface, QueryRunner } from "typeorm";

export class PersonSearch1795868750901 implements MigrationInterface {
    name = 'PersonSearch1795868750901'

    public async up(queryRunner: QueryRunner): Promise<void> {
        // Hand-edited: an index without stopwords, so that every word of a name or an email can
        // be searched ("com", "will", "the" are InnoDB's default stopwords). The index keeps the
        // setting it was created with; the session's is put back afterwards.
        await queryRunner.query(`SET SESSION innodb_ft_enable_stopword = OFF`);
        try {
            await queryRunner.query(`CREATE FULLTEXT INDEX \`IDX_person_search\` ON \`person\` (\`first_name\`, \`last_name\`, \`username\`, \`main_email\`)`);
        } finally {
            await queryRunner.query(`SET SESSION innodb_ft_enable_stopword = DEFAULT`);
        }
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`IDX_person_search\` ON \`person\``);
    }

}
