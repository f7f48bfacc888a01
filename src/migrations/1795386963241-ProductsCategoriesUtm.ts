import { MigrationInterface, QueryRunner } from "typeorm";

export class ProductsCategoriesUtm1795386963241 implements MigrationInterface {
    name = 'ProductsCategoriesUtm1795386963241'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`product_category\` (\`id\` int NOT NULL AUTO_INCREMENT, \`project_id\` int NOT NULL, \`name\` varchar(200) NOT NULL, \`name_key\` varchar(200) NOT NULL, \`top_remark\` text NULL, \`bottom_remark\` text NULL, \`quota_ordered\` int NULL, \`interchange\` tinyint NOT NULL DEFAULT 0, \`mandatory\` tinyint NOT NULL DEFAULT 0, UNIQUE INDEX \`IDX_d14e30066031223f436d014a06\` (\`project_id\`, \`name_key\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`ALTER TABLE \`registration\` ADD \`utm_campaign\` varchar(255) NULL`);
        await queryRunner.query(`ALTER TABLE \`registration\` ADD \`utm_content\` varchar(255) NULL`);
        await queryRunner.query(`ALTER TABLE \`registration\` ADD \`utm_id\` varchar(255) NULL`);
        await queryRunner.query(`ALTER TABLE \`registration\` ADD \`utm_medium\` varchar(255) NULL`);
        await queryRunner.query(`ALTER TABLE \`registration\` ADD \`utm_source\` varchar(255) NULL`);
        await queryRunner.query(`ALTER TABLE \`registration\` ADD \`utm_term\` varchar(255) NULL`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`base_type\` int NOT NULL DEFAULT '7'`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`category_id\` int NULL`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`level\` varchar(10) NOT NULL DEFAULT 'all'`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`available_from\` datetime(3) NULL`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`available_until\` datetime(3) NULL`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`only_one\` tinyint NOT NULL DEFAULT 0`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`lock_once_funds_allocated\` tinyint NOT NULL DEFAULT 0`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`remarks\` text NULL`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`location\` varchar(255) NULL`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`internal_id\` varchar(255) NULL`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`misc1\` varchar(255) NULL`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`misc2\` varchar(255) NULL`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`parent_product_id\` int NULL`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD \`is_private\` tinyint NOT NULL DEFAULT 0`);
        await queryRunner.query(`ALTER TABLE \`cart_line\` ADD \`remark\` text NULL`);
        await queryRunner.query(`ALTER TABLE \`cart_line\` ADD \`recurring_start_date\` datetime(3) NULL`);
        await queryRunner.query(`ALTER TABLE \`payment\` ADD \`method\` varchar(100) NULL`);
        await queryRunner.query(`ALTER TABLE \`payment\` ADD \`note\` text NULL`);
        await queryRunner.query(`CREATE INDEX \`IDX_0dce9bc93c2d2c399982d04bef\` ON \`product\` (\`category_id\`)`);
        await queryRunner.query(`ALTER TABLE \`product_category\` ADD CONSTRAINT \`FK_c93b6634e25f833d6d303b3ce50\` FOREIGN KEY (\`project_id\`) REFERENCES \`project\`(\`id\`) ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD CONSTRAINT \`FK_0dce9bc93c2d2c399982d04bef1\` FOREIGN KEY (\`category_id\`) REFERENCES \`product_category\`(\`id\`) ON DELETE SET NULL ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE \`product\` ADD CONSTRAINT \`FK_bff38f65fa006ede7002dfef408\` FOREIGN KEY (\`parent_product_id\`) REFERENCES \`product\`(\`id\`) ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`product\` DROP FOREIGN KEY \`FK_bff38f65fa006ede7002dfef408\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP FOREIGN KEY \`FK_0dce9bc93c2d2c399982d04bef1\``);
        await queryRunner.query(`ALTER TABLE \`product_category\` DROP FOREIGN KEY \`FK_c93b6634e25f833d6d303b3ce50\``);
        await queryRunner.query(`DROP INDEX \`IDX_0dce9bc93c2d2c399982d04bef\` ON \`product\``);
        await queryRunner.query(`ALTER TABLE \`payment\` DROP COLUMN \`note\``);
        await queryRunner.query(`ALTER TABLE \`payment\` DROP COLUMN \`method\``);
        await queryRunner.query(`ALTER TABLE \`cart_line\` DROP COLUMN \`recurring_start_date\``);
        await queryRunner.query(`ALTER TABLE \`cart_line\` DROP COLUMN \`remark\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`is_private\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`parent_product_id\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`misc2\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`misc1\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`internal_id\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`location\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`remarks\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`lock_once_funds_allocated\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`only_one\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`available_until\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`available_from\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`level\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`category_id\``);
        await queryRunner.query(`ALTER TABLE \`product\` DROP COLUMN \`base_type\``);
        await queryRunner.query(`ALTER TABLE \`registration\` DROP COLUMN \`utm_term\``);
        await queryRunner.query(`ALTER TABLE \`registration\` DROP COLUMN \`utm_source\``);
        await queryRunner.query(`ALTER TABLE \`registration\` DROP COLUMN \`utm_medium\``);
        await queryRunner.query(`ALTER TABLE \`registration\` DROP COLUMN \`utm_id\``);
        await queryRunner.query(`ALTER TABLE \`registration\` DROP COLUMN \`utm_content\``);
        await queryRunner.query(`ALTER TABLE \`registration\` DROP COLUMN \`utm_campaign\``);
        await queryRunner.query(`DROP INDEX \`IDX_d14e30066031223f436d014a06\` ON \`product_category\``);
        await queryRunner.query(`DROP TABLE \`product_category\``);
    }

}
