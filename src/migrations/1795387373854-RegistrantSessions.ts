import { MigrationInterface, QueryRunner } from "typeorm";

export class RegistrantSessions1795387373854 implements MigrationInterface {
    name = 'RegistrantSessions1795387373854'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`login_token\` (\`id\` int NOT NULL AUTO_INCREMENT, \`token_hash\` varchar(64) NOT NULL, \`registration_id\` int NOT NULL, \`created_at\` datetime(3) NOT NULL, \`expires_at\` datetime(3) NOT NULL, \`used_at\` datetime(3) NULL, UNIQUE INDEX \`IDX_133de4a942c082beefca6ff1b9\` (\`token_hash\`), INDEX \`IDX_e5b398c6c673ac5e631c6ce605\` (\`registration_id\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`registrant_session\` (\`id\` int NOT NULL AUTO_INCREMENT, \`token_hash\` varchar(64) NOT NULL, \`registration_id\` int NOT NULL, \`created_at\` datetime(3) NOT NULL, \`expires_at\` datetime(3) NOT NULL, UNIQUE INDEX \`IDX_5c3e68c8c01d90266c178a5b08\` (\`token_hash\`), INDEX \`IDX_d66aafae79158ccde99aef7fab\` (\`registration_id\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`ALTER TABLE \`login_token\` ADD CONSTRAINT \`FK_e5b398c6c673ac5e631c6ce605d\` FOREIGN KEY (\`registration_id\`) REFERENCES \`registration\`(\`uid\`) ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE \`registrant_session\` ADD CONSTRAINT \`FK_d66aafae79158ccde99aef7fabf\` FOREIGN KEY (\`registration_id\`) REFERENCES \`registration\`(\`uid\`) ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`registrant_session\` DROP FOREIGN KEY \`FK_d66aafae79158ccde99aef7fabf\``);
        await queryRunner.query(`ALTER TABLE \`login_token\` DROP FOREIGN KEY \`FK_e5b398c6c673ac5e631c6ce605d\``);
        await queryRunner.query(`DROP INDEX \`IDX_d66aafae79158ccde99aef7fab\` ON \`registrant_session\``);
        await queryRunner.query(`DROP INDEX \`IDX_5c3e68c8c01d90266c178a5b08\` ON \`registrant_session\``);
        await queryRunner.query(`DROP TABLE \`registrant_session\``);
        await queryRunner.query(`DROP INDEX \`IDX_e5b398c6c673ac5e631c6ce605\` ON \`login_token\``);
        await queryRunner.query(`DROP INDEX \`IDX_133de4a942c082beefca6ff1b9\` ON \`login_token\``);
        await queryRunner.query(`DROP TABLE \`login_token\``);
    }

}
