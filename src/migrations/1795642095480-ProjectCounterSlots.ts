import { MigrationInterface, QueryRunner } from "typeorm";
import { recountWith } from "../data/project-counters.data";

// Counter slots (docs/counters.md): a project's totals spread over several rows, so concurrent
// writes to one project do not all wait for one row. The existing row of each project becomes
// its slot 0; the primary key changes in one statement, so the foreign key on project_id keeps an
// index throughout.
export class ProjectCounterSlots1795642095480 implements MigrationInterface {
    name = 'ProjectCounterSlots1795642095480'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`project_counter\` ADD \`slot\` smallint NOT NULL DEFAULT '0', DROP PRIMARY KEY, ADD PRIMARY KEY (\`project_id\`, \`slot\`)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        // Back to one row per project: rebuilt by the recount, whose statements write slot 0 only.
        await queryRunner.query(`DELETE FROM \`project_counter\``);
        await queryRunner.query(`ALTER TABLE \`project_counter\` DROP PRIMARY KEY, DROP COLUMN \`slot\`, ADD PRIMARY KEY (\`project_id\`)`);
        await recountWith((sql, parameters) => queryRunner.query(sql, parameters), "mysql", "all");
    }

}
