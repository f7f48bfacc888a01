import { MigrationInterface, QueryRunner } from "typeorm";
import { recountWith } from "../data/project-counters.data";

export class ProjectCounters1795397156494 implements MigrationInterface {
    name = 'ProjectCounters1795397156494'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`project_counter\` (\`project_id\` int NOT NULL, \`parent_active_registrations\` bigint NOT NULL DEFAULT '0', \`parent_active_order_cents\` bigint NOT NULL DEFAULT '0', \`parent_active_paid_cents\` bigint NOT NULL DEFAULT '0', \`parent_excluded_registrations\` bigint NOT NULL DEFAULT '0', \`parent_excluded_order_cents\` bigint NOT NULL DEFAULT '0', \`parent_excluded_paid_cents\` bigint NOT NULL DEFAULT '0', \`child_active_registrations\` bigint NOT NULL DEFAULT '0', \`child_active_order_cents\` bigint NOT NULL DEFAULT '0', \`child_active_paid_cents\` bigint NOT NULL DEFAULT '0', \`child_excluded_registrations\` bigint NOT NULL DEFAULT '0', \`child_excluded_order_cents\` bigint NOT NULL DEFAULT '0', \`child_excluded_paid_cents\` bigint NOT NULL DEFAULT '0', \`orphan_active_registrations\` bigint NOT NULL DEFAULT '0', \`orphan_active_order_cents\` bigint NOT NULL DEFAULT '0', \`orphan_active_paid_cents\` bigint NOT NULL DEFAULT '0', \`orphan_excluded_registrations\` bigint NOT NULL DEFAULT '0', \`orphan_excluded_order_cents\` bigint NOT NULL DEFAULT '0', \`orphan_excluded_paid_cents\` bigint NOT NULL DEFAULT '0', PRIMARY KEY (\`project_id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE INDEX \`IDX_registration_children\` ON \`registration\` (\`project_id\`, \`connected_to\`, \`status_id\`)`);
        await queryRunner.query(`ALTER TABLE \`project_counter\` ADD CONSTRAINT \`FK_767b5db32d7ae33949af50072f6\` FOREIGN KEY (\`project_id\`) REFERENCES \`project\`(\`id\`) ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`DROP INDEX \`IDX_9307f43b9dc7bb14b94f8914ba\` ON \`registration\``);
        // Backfill with the recount's own statements, so existing registrations, cart lines and
        // payments are counted exactly as the running code would have counted them.
        await recountWith((sql, parameters) => queryRunner.query(sql, parameters), "mysql", "all");
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`project_counter\` DROP FOREIGN KEY \`FK_767b5db32d7ae33949af50072f6\``);
        await queryRunner.query(`DROP INDEX \`IDX_registration_children\` ON \`registration\``);
        await queryRunner.query(`DROP TABLE \`project_counter\``);
        await queryRunner.query(`CREATE INDEX \`IDX_9307f43b9dc7bb14b94f8914ba\` ON \`registration\` (\`project_id\`, \`connected_to\`)`);
    }

}
