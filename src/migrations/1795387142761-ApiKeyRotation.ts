import { MigrationInterface, QueryRunner } from "typeorm";

export class ApiKeyRotation1795387142761 implements MigrationInterface {
    name = 'ApiKeyRotation1795387142761'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`api_account\` ADD \`previous_token_hash\` varchar(64) NULL`);
        await queryRunner.query(`ALTER TABLE \`api_account\` ADD \`previous_token_expires_at\` datetime(3) NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`api_account\` DROP COLUMN \`previous_token_expires_at\``);
        await queryRunner.query(`ALTER TABLE \`api_account\` DROP COLUMN \`previous_token_hash\``);
    }

}
