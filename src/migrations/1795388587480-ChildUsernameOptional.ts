import { MigrationInterface, QueryRunner } from "typeorm";

export class ChildUsernameOptional1795388587480 implements MigrationInterface {
    name = 'ChildUsernameOptional1795388587480'

    public async up(queryRunner: QueryRunner): Promise<void> {
        // MODIFY keeps the unique index, which the organization foreign key also uses (it cannot be dropped).
        await queryRunner.query(`ALTER TABLE \`person\` MODIFY \`username\` varchar(254) NULL`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`person\` MODIFY \`username\` varchar(254) NOT NULL`);
    }
}
