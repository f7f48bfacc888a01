import { MigrationInterface, QueryRunner } from "typeorm";

export class RegistrationAppliedIndex1795872000000 implements MigrationInterface {
    name = 'RegistrationAppliedIndex1795872000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE INDEX \`IDX_registration_applied\` ON \`registration\` (\`project_id\`, \`application_date\`, \`uid\`)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`IDX_registration_applied\` ON \`registration\``);
    }

}
