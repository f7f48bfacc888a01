import { MigrationInterface, QueryRunner } from "typeorm";

export class ApiKeyScopes1795700000000 implements MigrationInterface {
    name = 'ApiKeyScopes1795700000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`api_account\` ADD \`scope_operations\` text NULL`);
        await queryRunner.query(`ALTER TABLE \`api_account\` ADD \`scope_group_ids\` text NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`api_account\` DROP COLUMN \`scope_group_ids\``);
        await queryRunner.query(`ALTER TABLE \`api_account\` DROP COLUMN \`scope_operations\``);
    }

}
