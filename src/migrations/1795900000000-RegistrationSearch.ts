import { MigrationInterface, QueryRunner } from "typeorm";

// The users search reads one document per registration (registration_search, keyed by its uid,
// with the project id beside it), so that a search neither joins the registrations nor the
// persons; and registration.sort_name holds the NAME order's key. Both are filled here from the
// persons as they are (src/data/person-search.data.ts writes them from then on). The FULLTEXT
// index is made after the rows (one sorted build), without stopwords as the person index it
// replaces was.
export class RegistrationSearch1795900000000 implements MigrationInterface {
    name = 'RegistrationSearch1795900000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`registration\` ADD \`sort_name\` varchar(254) NOT NULL DEFAULT ''`);
        await queryRunner.query(`UPDATE \`registration\` r JOIN \`person\` p ON p.id = r.person_id
            SET r.sort_name = LOWER(COALESCE(NULLIF(TRIM(CONCAT(COALESCE(p.first_name, ''), ' ', COALESCE(p.last_name, ''))), ''),
                                             NULLIF(TRIM(p.org_name), ''), COALESCE(p.username, '')))`);
        await queryRunner.query(`CREATE INDEX \`IDX_registration_name\` ON \`registration\` (\`project_id\`, \`sort_name\`, \`uid\`)`);
        await queryRunner.query(`CREATE TABLE \`registration_search\` (\`uid\` int NOT NULL, \`project_id\` int NOT NULL, \`search_text\` varchar(1000) NOT NULL,
            PRIMARY KEY (\`uid\`),
            CONSTRAINT \`FK_registration_search_registration\` FOREIGN KEY (\`uid\`) REFERENCES \`registration\` (\`uid\`) ON DELETE CASCADE)
            ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
        await queryRunner.query(`INSERT INTO \`registration_search\` (\`uid\`, \`project_id\`, \`search_text\`)
            SELECT r.uid, r.project_id, CONCAT_WS(' ', p.first_name, p.last_name, p.username, p.main_email)
              FROM \`registration\` r JOIN \`person\` p ON p.id = r.person_id`);
        await queryRunner.query(`SET SESSION innodb_ft_enable_stopword = OFF`);
        try {
            await queryRunner.query(`CREATE FULLTEXT INDEX \`IDX_registration_search\` ON \`registration_search\` (\`search_text\`)`);
        } finally {
            await queryRunner.query(`SET SESSION innodb_ft_enable_stopword = DEFAULT`);
        }
        await queryRunner.query(`DROP INDEX \`IDX_person_search\` ON \`person\``);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`SET SESSION innodb_ft_enable_stopword = OFF`);
        try {
            await queryRunner.query(`CREATE FULLTEXT INDEX \`IDX_person_search\` ON \`person\` (\`first_name\`, \`last_name\`, \`username\`, \`main_email\`)`);
        } finally {
            await queryRunner.query(`SET SESSION innodb_ft_enable_stopword = DEFAULT`);
        }
        await queryRunner.query(`DROP TABLE \`registration_search\``);
        await queryRunner.query(`DROP INDEX \`IDX_registration_name\` ON \`registration\``);
        await queryRunner.query(`ALTER TABLE \`registration\` DROP COLUMN \`sort_name\``);
    }

}
