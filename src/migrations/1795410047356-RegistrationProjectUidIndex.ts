import { MigrationInterface, QueryRunner } from "typeorm";

export class RegistrationProjectUidIndex1795410047356 implements MigrationInterface {
    name = 'RegistrationProjectUidIndex1795410047356'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE INDEX \`IDX_registration_project_uid\` ON \`registration\` (\`project_id\`, \`uid\`)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`IDX_registration_project_uid\` ON \`registration\``);
    }

}
