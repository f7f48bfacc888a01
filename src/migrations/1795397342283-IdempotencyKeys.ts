import { MigrationInterface, QueryRunner } from "typeorm";

export class IdempotencyKeys1795397342283 implements MigrationInterface {
    name = 'IdempotencyKeys1795397342283'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`idempotency_key\` (\`id\` int NOT NULL AUTO_INCREMENT, \`api_account_id\` int NOT NULL, \`key_hash\` varchar(64) NOT NULL, \`request_hash\` varchar(64) NOT NULL, \`response_status\` int NULL, \`response_content_type\` varchar(100) NULL, \`response_body\` text NULL, \`created_at\` datetime(3) NOT NULL, \`expires_at\` datetime(3) NOT NULL, INDEX \`IDX_40aab95c36e58255f7618768f0\` (\`expires_at\`), UNIQUE INDEX \`IDX_fa45993a408225689ad81f896a\` (\`api_account_id\`, \`key_hash\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`IDX_fa45993a408225689ad81f896a\` ON \`idempotency_key\``);
        await queryRunner.query(`DROP INDEX \`IDX_40aab95c36e58255f7618768f0\` ON \`idempotency_key\``);
        await queryRunner.query(`DROP TABLE \`idempotency_key\``);
    }

}
