import { MigrationInterface, QueryRunner } from "typeorm";

export class FeedAndUpdatedAt1795710000000 implements MigrationInterface {
    name = 'FeedAndUpdatedAt1795710000000'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`event_feed\` (\`id\` int NOT NULL, \`last_position\` int NOT NULL DEFAULT '0', \`pruned_through\` int NOT NULL DEFAULT '0', PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        // Hand-edited: existing registrations were last changed, as far as is known, when they applied.
        await queryRunner.query(`ALTER TABLE \`registration\` ADD \`updated_at\` datetime(3) NULL`);
        await queryRunner.query(`UPDATE \`registration\` SET \`updated_at\` = \`application_date\``);
        await queryRunner.query(`ALTER TABLE \`registration\` MODIFY \`updated_at\` datetime(3) NOT NULL`);
        await queryRunner.query(`ALTER TABLE \`event\` ADD \`actor\` text NULL`);
        await queryRunner.query(`ALTER TABLE \`event\` ADD \`feed_position\` int NULL`);
        // Hand-added: events fanned out already join the feed in id order (as they were delivered).
        await queryRunner.query(`UPDATE \`event\` SET \`feed_position\` = \`id\` WHERE \`dispatched_at\` IS NOT NULL`);
        await queryRunner.query(`INSERT INTO \`event_feed\` (\`id\`, \`last_position\`, \`pruned_through\`) SELECT 1, COALESCE(MAX(\`id\`), 0), 0 FROM \`event\``);
        await queryRunner.query(`ALTER TABLE \`event\` ADD UNIQUE INDEX \`IDX_0354eeeec1881683ed3f1e4513\` (\`feed_position\`)`);
        await queryRunner.query(`CREATE INDEX \`IDX_registration_updated\` ON \`registration\` (\`project_id\`, \`updated_at\`, \`uid\`, \`connected_to\`, \`status_id\`)`);
        await queryRunner.query(`CREATE INDEX \`IDX_event_created\` ON \`event\` (\`created_at\`)`);
        await queryRunner.query(`CREATE INDEX \`IDX_event_feed_group\` ON \`event\` (\`group_id\`, \`feed_position\`)`);
        await queryRunner.query(`CREATE INDEX \`IDX_event_feed_org\` ON \`event\` (\`organization_id\`, \`feed_position\`)`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX \`IDX_event_feed_org\` ON \`event\``);
        await queryRunner.query(`DROP INDEX \`IDX_event_feed_group\` ON \`event\``);
        await queryRunner.query(`DROP INDEX \`IDX_event_created\` ON \`event\``);
        await queryRunner.query(`DROP INDEX \`IDX_registration_updated\` ON \`registration\``);
        await queryRunner.query(`ALTER TABLE \`event\` DROP INDEX \`IDX_0354eeeec1881683ed3f1e4513\``);
        await queryRunner.query(`ALTER TABLE \`event\` DROP COLUMN \`feed_position\``);
        await queryRunner.query(`ALTER TABLE \`event\` DROP COLUMN \`actor\``);
        await queryRunner.query(`ALTER TABLE \`registration\` DROP COLUMN \`updated_at\``);
        await queryRunner.query(`DROP TABLE \`event_feed\``);
    }

}
