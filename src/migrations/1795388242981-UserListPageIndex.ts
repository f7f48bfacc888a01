import { MigrationInterface, QueryRunner } from "typeorm";

export class UserListPageIndex1795388242981 implements MigrationInterface {
    name = 'UserListPageIndex1795388242981'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE INDEX \`IDX_registration_list_page\` ON \`registration\` (\`project_id\`, \`connected_to\`, \`uid\`, \`status_id\`)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`IDX_registration_list_page\` ON \`registration\``);
    }

}
